// The public Tokenizer (include/tokvec/tokenizer.h) gives what the library's tokvec::Tokenizer gives on real
// tokenizer files and real text: the same ids, offsets, decoded text and spellings. Errors come back as statuses
// with the library's codes and messages.
#include "tokvec/tokenizer.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/api/api_testutil.h"
#include "tokvec/train.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::api {
namespace {

using ::testing::HasSubstr;

// Each file against the library on the corpora's texts: ids and offsets, then Decode and the spellings.
TEST(ApiTokenizerTest, EncodesAndDecodesAsTheLibraryOnRealFiles) {
  for (const std::string& path : RealTokenizerFiles()) {
    SCOPED_TRACE(path);
    absl::StatusOr<Tokenizer> tokenizer = Tokenizer::Load(path);
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    absl::StatusOr<std::unique_ptr<tokvec::Tokenizer>> library = tokvec::Tokenizer::Load(path);
    ASSERT_TRUE(library.ok()) << library.status();
    EXPECT_EQ(tokenizer->vocab_size(), (*library)->vocab_size());
    EXPECT_EQ(static_cast<int>(tokenizer->type()), static_cast<int>((*library)->type()));
    for (const std::string& text : RealTexts()) {
      absl::StatusOr<Encoding> encoding = tokenizer->Encode(text);
      ASSERT_TRUE(encoding.ok()) << encoding.status();
      absl::StatusOr<tokvec::Encoding> expected = (*library)->Encode(text);
      ASSERT_TRUE(expected.ok()) << expected.status();
      ASSERT_EQ(encoding->ids, expected->ids);
      ASSERT_EQ(encoding->offsets.size(), expected->offsets.size());
      for (size_t i = 0; i < expected->offsets.size(); ++i) {
        ASSERT_EQ(encoding->offsets[i].begin, expected->offsets[i].begin) << "token " << i;
        ASSERT_EQ(encoding->offsets[i].end, expected->offsets[i].end) << "token " << i;
      }
      absl::StatusOr<std::string> decoded = tokenizer->Decode(encoding->ids);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(*decoded, *(*library)->Decode(expected->ids));
      for (size_t i = 0; i < std::min<size_t>(expected->ids.size(), 200); ++i) {
        EXPECT_EQ(tokenizer->TokenSpelling(expected->ids[i]), (*library)->TokenSpelling(expected->ids[i]));
      }
    }
  }
}

TEST(ApiTokenizerTest, GoldenIdsOfGpt2) {
  absl::StatusOr<Tokenizer> tokenizer = Tokenizer::Load(SharedVocab("gpt2.tiktoken"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoding = tokenizer->Encode("hello world");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  EXPECT_EQ(encoding->ids, (std::vector<uint32_t>{31373, 995}));
  ASSERT_EQ(encoding->offsets.size(), 2u);
  EXPECT_EQ(encoding->offsets[1].begin, 5u);
  EXPECT_EQ(encoding->offsets[1].end, 11u);
  EXPECT_EQ(tokenizer->TokenSpelling(995), "Ġworld");
  EXPECT_EQ(tokenizer->type(), ModelType::kByte);
}

TEST(ApiTokenizerTest, SpecialTokensOnlyWhenAllowed) {
  absl::StatusOr<Tokenizer> tokenizer = Tokenizer::Load(SharedVocab("gpt2.tiktoken"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string text = "a<|endoftext|>b";
  absl::StatusOr<Encoding> plain = tokenizer->Encode(text);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_THAT(plain->ids, ::testing::Not(::testing::Contains(50256u)));
  absl::StatusOr<Encoding> listed = tokenizer->Encode(text, {.allowed_special = {"<|endoftext|>"}});
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->ids, (std::vector<uint32_t>{64, 50256, 65}));
  absl::StatusOr<Encoding> all = tokenizer->Encode(text, {.allow_all_special = true});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->ids, listed->ids);
  absl::StatusOr<std::string> skipped = tokenizer->Decode(all->ids, {.skip_special_tokens = true});
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_EQ(*skipped, "ab");
}

TEST(ApiTokenizerTest, AddsThePostProcessorsTokens) {
  const std::string path = TestdataPath("hf_bert_f32/tokenizer.json");
  absl::StatusOr<Tokenizer> tokenizer = Tokenizer::Load(path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::unique_ptr<tokvec::Tokenizer>> library = tokvec::Tokenizer::Load(path);
  ASSERT_TRUE(library.ok()) << library.status();
  absl::StatusOr<Encoding> encoding = tokenizer->Encode("Your cat is a lovely cat", {.add_special_tokens = true});
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  absl::StatusOr<tokvec::Encoding> expected =
      (*library)->Encode("Your cat is a lovely cat", {.add_special_tokens = true});
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(encoding->ids, expected->ids);
  EXPECT_EQ(tokenizer->TokenSpelling(encoding->ids.front()), "[CLS]");
  EXPECT_EQ(tokenizer->TokenSpelling(encoding->ids.back()), "[SEP]");
}

TEST(ApiTokenizerTest, CopiesShareTheVocabulary) {
  absl::StatusOr<Tokenizer> loaded = Tokenizer::Load(SharedVocab("cl100k_base.tiktoken"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Tokenizer copy = *loaded;
  loaded = absl::NotFoundError("replaced");  // the copy keeps the vocabulary alive on its own
  absl::StatusOr<Encoding> encoding = copy.Encode("hello world");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  EXPECT_EQ(encoding->ids, (std::vector<uint32_t>{15339, 1917}));
}

// A tokvec model file (here: trained by `tokvec train`'s code) saved again and loaded encodes every text as before
// and is the same file.
TEST(ApiTokenizerTest, SaveWritesAFileThatEncodesTheSame) {
  std::vector<std::string_view> texts;
  const std::vector<std::string> owned = RealTexts();
  texts.assign(owned.begin(), owned.end());
  const std::filesystem::path dir = ::testing::TempDir();
  for (ModelType type : {ModelType::kByte, ModelType::kWord}) {
    absl::StatusOr<Tokenizer> trained = TrainTokenizerFromTexts(texts, {.type = type, .vocab_size = 2000});
    ASSERT_TRUE(trained.ok()) << trained.status();
    ASSERT_TRUE(trained->Save((dir / "api_first.tokvec").string()).ok());
    absl::StatusOr<Tokenizer> reloaded = Tokenizer::Load((dir / "api_first.tokvec").string());
    ASSERT_TRUE(reloaded.ok()) << reloaded.status();
    for (const std::string& text : owned) {
      absl::StatusOr<Encoding> before = trained->Encode(text);
      absl::StatusOr<Encoding> after = reloaded->Encode(text);
      if (!before.ok()) {  // a word model refuses some inputs (invalid UTF-8); the reloaded one the same way
        EXPECT_EQ(after.status(), before.status());
        continue;
      }
      ASSERT_TRUE(after.ok()) << after.status();
      EXPECT_EQ(after->ids, before->ids);
    }
    ASSERT_TRUE(reloaded->Save((dir / "api_second.tokvec").string()).ok());
    EXPECT_EQ(*ReadFile((dir / "api_second.tokvec").string()), *ReadFile((dir / "api_first.tokvec").string()));
  }
}

// Whatever the source, Save either writes a file that loads again or refuses (FailedPrecondition) and writes
// nothing: tiktoken ranks and WordPiece always refuse; the others as the model file format allows.
TEST(ApiTokenizerTest, SaveNeverLeavesAFileThatDoesNotLoad) {
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "api_any.tokvec";
  for (const std::string& source : RealTokenizerFiles()) {
    SCOPED_TRACE(source);
    std::filesystem::remove(path);
    absl::StatusOr<Tokenizer> tokenizer = Tokenizer::Load(source);
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    absl::Status saved = tokenizer->Save(path.string());
    if (saved.ok()) {
      absl::StatusOr<Tokenizer> reloaded = Tokenizer::Load(path.string());
      EXPECT_TRUE(reloaded.ok()) << reloaded.status();
    } else {
      EXPECT_EQ(saved.code(), absl::StatusCode::kFailedPrecondition) << saved;
      EXPECT_FALSE(std::filesystem::exists(path));
    }
    if (source.ends_with(".tiktoken") || tokenizer->type() == ModelType::kWordPiece) {
      EXPECT_FALSE(saved.ok());
    }
  }
  std::filesystem::remove(path);
}

TEST(ApiTokenizerTest, ErrorsAreStatuses) {
  absl::StatusOr<Tokenizer> missing = Tokenizer::Load(TestdataPath("no_such_tokenizer.tiktoken"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_tokenizer"));

  absl::StatusOr<Tokenizer> tokenizer = Tokenizer::Load(SharedVocab("gpt2.tiktoken"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> unknown = tokenizer->Encode("a", {.allowed_special = {"<|im_start|>"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("'<|im_start|>' is not a special token"));
  const std::vector<uint32_t> outside = {1, 999999};
  absl::StatusOr<std::string> decoded = tokenizer->Decode(outside);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(decoded.status().message(), HasSubstr("999999"));

  absl::StatusOr<Tokenizer> bert = Tokenizer::Load(TestdataPath("hf_bert_f32/tokenizer.json"));
  ASSERT_TRUE(bert.ok()) << bert.status();
  absl::Status saved = bert->Save((std::filesystem::path(::testing::TempDir()) / "bert.tokvec").string());
  EXPECT_EQ(saved.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(saved.message(), HasSubstr("wordpiece tokenizer has no tokvec model file form"));
  absl::Status ranks = tokenizer->Save((std::filesystem::path(::testing::TempDir()) / "gpt2.tokvec").string());
  EXPECT_EQ(ranks.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(ranks.message(), HasSubstr("tiktoken ranks has no tokvec model file form"));
}

}  // namespace
}  // namespace tokvec::api
