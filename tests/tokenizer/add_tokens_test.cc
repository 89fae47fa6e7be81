// Adding tokens without moving ids (tokenizer/added_tokens.h, `tokvec extend --add-tokens`): Hugging Face's
// add_tokens rules (ids, a token already in the vocabulary, flags updated in place), the token file's two line shapes
// and its errors, and corpus text without the new tokens keeping every id. Hugging Face's ids on extended files are
// checked by `make conformance` (extended/*).
#include "tokenizer/added_tokens.h"

#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tokenizer/shared_vocab_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

const std::string kWordPiece = std::string(TOKVEC_SOURCE_DIR) + "/tests/data/wordpiece/uncased.json";

TEST(ParseNewTokensTest, PlainLinesAndAddedTokenObjects) {
  const std::string text =
      "tokvec\r\n\n<|tool|>\n{\"content\": \"<x>\", \"special\": true, \"rstrip\": true}\n{\"content\": \"y\", "
      "\"normalized\": false}";
  absl::StatusOr<std::vector<NewToken>> tokens = ParseNewTokens(text, {.single_word = true}, "t.txt");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  ASSERT_EQ(tokens->size(), 4u);
  EXPECT_EQ((*tokens)[0].content, "tokvec");
  EXPECT_TRUE((*tokens)[0].single_word);
  EXPECT_FALSE((*tokens)[0].normalized.has_value());
  EXPECT_EQ((*tokens)[1].content, "<|tool|>");
  EXPECT_EQ((*tokens)[2].content, "<x>");
  EXPECT_TRUE((*tokens)[2].special && (*tokens)[2].rstrip && (*tokens)[2].single_word);
  EXPECT_EQ((*tokens)[3].normalized, false);
}

TEST(ParseNewTokensTest, ErrorsNameTheLine) {
  auto error = [](const std::string& text) {
    absl::StatusOr<std::vector<NewToken>> tokens = ParseNewTokens(text, {}, "t.txt");
    return tokens.ok() ? std::string("ok") : std::string(tokens.status().message());
  };
  EXPECT_THAT(error("a\n{\"content\": 3}\n"), HasSubstr("t.txt:2: key 'content' must be a string"));
  EXPECT_THAT(error("{not json\n"), HasSubstr("t.txt:1: a line starting with '{' must be a JSON object"));
  EXPECT_THAT(error("a\nb\n{\"content\": \"c\", \"lstrip\": 1}"), HasSubstr("t.txt:3: key 'lstrip' must be true"));
}

// Loads `path` and its spec, adds `tokens`, returns the extended tokenizer.
struct Extended {
  std::unique_ptr<Tokenizer> before, after;
  AddedTokensReport report;
};
Extended Extend(const std::string& path, const std::vector<NewToken>& tokens) {
  Extended out;
  absl::StatusOr<std::unique_ptr<Tokenizer>> before = Tokenizer::Load(path);
  EXPECT_TRUE(before.ok()) << before.status();
  absl::StatusOr<TokenizerSpec> spec = Tokenizer::LoadSpec(path, {});
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<AddedTokensReport> report = AddTokens(tokens, **before, &*spec);
  EXPECT_TRUE(report.ok()) << report.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> after = Tokenizer::Create(*std::move(spec));
  EXPECT_TRUE(after.ok()) << after.status();
  out.before = *std::move(before);
  out.after = *std::move(after);
  out.report = *report;
  return out;
}

TEST(AddTokensTest, NewIdsFollowEveryExistingOneAndVocabularyTokensKeepTheirs) {
  Extended e = Extend(kWordPiece, {{.content = "tokvec"}, {.content = "the"}, {.content = "<|tool|>", .special = true},
                                   {.content = ""}, {.content = "[SEP]", .special = true}});
  const size_t v = e.before->vocab_size();
  EXPECT_EQ(e.report.new_ids, 2u);
  EXPECT_EQ(e.report.from_vocab, 1u);  // "the"
  EXPECT_EQ(e.report.unchanged, 2u);   // "" and [SEP], already an added token with these flags
  EXPECT_EQ(e.after->vocab_size(), v + 2);
  absl::StatusOr<Encoding> encoded = e.after->Encode("the tokvec <|tool|>", {.allow_all_special = true});
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  absl::StatusOr<Encoding> the = e.before->Encode("the");
  ASSERT_TRUE(the.ok());
  EXPECT_EQ(encoded->ids, (std::vector<TokenId>{the->ids[0], static_cast<TokenId>(v), static_cast<TokenId>(v + 1)}));
  EXPECT_FALSE(e.after->FindAdded(static_cast<TokenId>(v))->special);
  EXPECT_TRUE(e.after->FindAdded(static_cast<TokenId>(v + 1))->special);
}

TEST(AddTokensTest, AnAddedTokenWithOtherFlagsIsUpdatedInPlace) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> base = Tokenizer::Load(kWordPiece);
  ASSERT_TRUE(base.ok());
  const std::optional<TokenId> sep = (*base)->FindSpecial("[SEP]");
  ASSERT_TRUE(sep.has_value());
  Extended e = Extend(kWordPiece, {{.content = "[SEP]", .special = true, .rstrip = true}});
  EXPECT_EQ(e.report.updated, 1u);
  EXPECT_EQ(e.after->vocab_size(), e.before->vocab_size());
  EXPECT_TRUE(e.after->FindAdded(*sep)->rstrip);
}

// Text without the new tokens encodes to the same ids before and after, on the shared corpora (or the repository's
// goldens' texts without them).
TEST(AddTokensTest, TextWithoutTheNewTokensKeepsItsIds) {
  std::vector<std::pair<std::string, std::string>> sources = {{"wordpiece", kWordPiece}};
  if (std::optional<std::string> gpt2 = testing::SharedVocabPath("gpt2.tiktoken")) sources.push_back({"gpt2", *gpt2});
  std::vector<std::string> texts = {"The cat sat on the mat.", "naïve café, 東京", "  spaces\tand\nlines  "};
  const std::string corpus = std::string(TOKVEC_SHARED_DIR) + "/corpora/wikitext2-valid.txt";
  if (absl::StatusOr<std::string> text = ReadFile(corpus); text.ok()) {
    texts.push_back(text->substr(0, 300000));
  } else {
    std::printf("[ note ] %s absent: short texts only\n", corpus.c_str());
  }
  for (const auto& [name, path] : sources) {
    Extended e = Extend(path, {{.content = "tokvecish"}, {.content = "<|tool|>", .special = true},
                               {.content = "zzqx", .single_word = true}});
    size_t ids = 0;
    for (const std::string& text : texts) {
      absl::StatusOr<Encoding> a = e.before->Encode(text), b = e.after->Encode(text);
      ASSERT_TRUE(a.ok() && b.ok()) << name;
      EXPECT_EQ(a->ids, b->ids) << name << ": " << testing::DescribeIdMismatch(*e.before, a->ids, b->ids);
      ASSERT_EQ(a->offsets.size(), b->offsets.size()) << name;
      for (size_t k = 0; k < a->offsets.size(); ++k) {
        EXPECT_TRUE(a->offsets[k].begin == b->offsets[k].begin && a->offsets[k].end == b->offsets[k].end) << name;
      }
      ids += a->ids.size();
    }
    std::printf("[ measured ] %s: %zu ids unchanged after adding 3 tokens\n", name.c_str(), ids);
  }
}

}  // namespace
}  // namespace tokvec
