// Sentence pairs (tokenizer/sequence_encoding.h) and Decode's skip_special_tokens against Hugging Face:
// tests/data/pairs/golden.json (scripts/gen_pairs_files.mjs, tokenizers 0.23.2) holds its encode(a, b) ids, type
// ids, sequence ids and offsets with and without special tokens, and decode(ids, skip_special_tokens=true), on
// files with each post-processor kind (TemplateProcessing, also reordered and in a Sequence; RobertaProcessing;
// BertProcessing; ByteLevel; none).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/sequence_encoding.h"
#include "tokenizer/processors/post_processor_json.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name; }

using Offsets = std::vector<std::vector<size_t>>;

Offsets AsPairs(const std::vector<Offset>& offsets) {
  Offsets out;
  for (const Offset& o : offsets) out.push_back({o.begin, o.end});
  return out;
}

TEST(PairEncodingTest, GoldensFromHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("pairs/golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json golden = nlohmann::json::parse(*text);
  size_t cases = 0;
  std::vector<std::string> files;
  for (const nlohmann::json& row : golden["cases"]) {
    const std::string file = row["file"].get<std::string>();
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(file));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    const std::string a = row["a"].get<std::string>(), b = row["b"].get<std::string>();
    for (const bool add : {false, true}) {
      const nlohmann::json& want = row[add ? "with_specials" : "plain"];
      // Hugging Face matches every added token in the text: allow all of them.
      absl::StatusOr<EncodedTokens> pair =
          EncodePair(**tokenizer, a, b, {.allow_all_special = true, .add_special_tokens = add});
      ASSERT_TRUE(pair.ok()) << pair.status();
      const std::string where = file + (add ? " add_special_tokens " : " ") + a + " | " + b;
      EXPECT_EQ(pair->ids, want["ids"].get<std::vector<TokenId>>()) << where;
      EXPECT_EQ(pair->type_ids, want["type_ids"].get<std::vector<uint32_t>>()) << where;
      EXPECT_EQ(pair->sequence_ids, want["sequence_ids"].get<std::vector<int>>()) << where;
      EXPECT_EQ(AsPairs(pair->offsets), want["offsets"].get<Offsets>()) << where;
      if (add) {
        absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(pair->ids, {.skip_special_tokens = true});
        ASSERT_TRUE(decoded.ok()) << decoded.status();
        EXPECT_EQ(*decoded, row["decoded_skip_special"].get<std::string>()) << where;
      }
      ++cases;
    }
  }
  EXPECT_GE(cases, 100u);
}

TEST(PairEncodingTest, SkipSpecialKeepsNonSpecialAddedTokens) {
  // byte-added.json: <s> </s> are special, <think> is not (Hugging Face keeps it with skip_special_tokens).
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("added/byte-added.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::optional<TokenId> s = (*tokenizer)->FindSpecial("<s>"), think = (*tokenizer)->FindSpecial("<think>");
  ASSERT_TRUE(s && think);
  absl::StatusOr<Encoding> x = (*tokenizer)->Encode("x");
  ASSERT_TRUE(x.ok());
  std::vector<TokenId> ids = {*s, *think};
  ids.insert(ids.end(), x->ids.begin(), x->ids.end());
  EXPECT_EQ(*(*tokenizer)->Decode(ids, {.skip_special_tokens = true}), "<think>x");
  EXPECT_EQ(*(*tokenizer)->Decode(ids, {.skip_special_tokens = false}), "<s><think>x");
  // An id outside the vocabulary is still an error.
  ids.push_back(static_cast<TokenId>((*tokenizer)->vocab_size()));
  EXPECT_EQ((*tokenizer)->Decode(ids, {.skip_special_tokens = true}).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(PairEncodingTest, SkipSpecialOnTiktokenSpecials) {
  const std::optional<std::string> path = testing::SharedVocabPath("cl100k_base.tiktoken");
  if (!path) GTEST_SKIP() << "../shared/vocab/cl100k_base.tiktoken is absent";
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string text = "<|endoftext|>Hello<|fim_prefix|> world<|endoftext|>";
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text, {.allow_all_special = true});
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  EXPECT_EQ(*(*tokenizer)->Decode(encoding->ids), text);
  EXPECT_EQ(*(*tokenizer)->Decode(encoding->ids, {.skip_special_tokens = true}), "Hello world");
}

TEST(PairEncodingTest, TemplateWithoutPairCannotEncodePairs) {
  const nlohmann::json node = nlohmann::json::parse(R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}})");
  absl::StatusOr<std::shared_ptr<const PostProcessor>> post = ReadHfPostProcessor(node, "t.json", 10);
  ASSERT_TRUE(post.ok()) << post.status();
  EXPECT_EQ((*post)->PairTemplate().status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string((*post)->PairTemplate().status().message()).find("no pair template"), std::string::npos);
}

TEST(PairEncodingTest, SequenceOfTwoTemplatesIsRefusedForPairs) {
  const nlohmann::json tpl = nlohmann::json::parse(R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
      "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}})");
  const nlohmann::json node = {{"type", "Sequence"}, {"processors", {tpl, tpl}}};
  absl::StatusOr<std::shared_ptr<const PostProcessor>> post = ReadHfPostProcessor(node, "t.json", 10);
  ASSERT_TRUE(post.ok()) << post.status();
  EXPECT_EQ((*post)->PairTemplate().status().code(), absl::StatusCode::kFailedPrecondition);
  // One template alone lays out pairs.
  absl::StatusOr<std::shared_ptr<const PostProcessor>> single = ReadHfPostProcessor(tpl, "t.json", 10);
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_TRUE((*single)->PairTemplate().ok());
}

TEST(PairEncodingTest, BadTypeIdIsAnError) {
  const nlohmann::json node = nlohmann::json::parse(R"({"type": "TemplateProcessing",
      "single": [{"Sequence": {"id": "A", "type_id": 0}}],
      "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": -1}}],
      "special_tokens": {}})");
  absl::StatusOr<std::shared_ptr<const PostProcessor>> post = ReadHfPostProcessor(node, "t.json", 10);
  ASSERT_FALSE(post.ok());
  EXPECT_NE(std::string(post.status().message()).find("post_processor.pair[1].Sequence.type_id"), std::string::npos)
      << post.status();
}

}  // namespace
}  // namespace tokvec

namespace tokvec {
namespace {

// What Hugging Face gives for one encoding (tests/data/lengths/golden.json), recursively for its windows.
void ExpectRows(const EncodedTokens& got, const nlohmann::json& want, const std::string& where) {
  EXPECT_EQ(got.ids, want["ids"].get<std::vector<TokenId>>()) << where;
  EXPECT_EQ(got.type_ids, want["type_ids"].get<std::vector<uint32_t>>()) << where;
  EXPECT_EQ(got.sequence_ids, want["sequence_ids"].get<std::vector<int>>()) << where;
  EXPECT_EQ(got.word_ids, want["word_ids"].get<std::vector<int32_t>>()) << where;
  EXPECT_EQ(got.attention_mask, want["attention_mask"].get<std::vector<uint8_t>>()) << where;
  EXPECT_EQ(got.special_tokens_mask, want["special_tokens_mask"].get<std::vector<uint8_t>>()) << where;
  EXPECT_EQ(AsPairs(got.offsets), want["offsets"].get<Offsets>()) << where;
  ASSERT_EQ(got.overflowing.size(), want["overflowing"].size()) << where;
  for (size_t i = 0; i < got.overflowing.size(); ++i) {
    ExpectRows(got.overflowing[i], want["overflowing"][i], where + " window " + std::to_string(i));
  }
}

TEST(SequenceEncodingTest, TruncationAndPaddingAsHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("lengths/golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json golden = nlohmann::json::parse(*text);
  size_t cases = 0, errors = 0, windows = 0;
  for (const nlohmann::json& row : golden["cases"]) {
    const std::string file = row["file"].get<std::string>();
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(file));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    const SequenceLengths lengths = SequenceLengths::Of(**tokenizer);
    ASSERT_TRUE(lengths.truncation || lengths.padding) << file;
    const EncodeOptions options{.allow_all_special = true, .add_special_tokens = row["add"].get<bool>()};
    std::string where = file + (options.add_special_tokens ? " add_special_tokens " : " ");
    ++cases;
    if (row.contains("batch")) {
      const std::vector<std::string> texts = row["batch"].get<std::vector<std::string>>();
      const std::vector<std::string_view> views(texts.begin(), texts.end());
      absl::StatusOr<std::vector<EncodedTokens>> batch = EncodeBatch(**tokenizer, views, {}, options, lengths);
      where += "batch";
      if (row.contains("error")) {
        EXPECT_FALSE(batch.ok()) << where;
        ++errors;
        continue;
      }
      ASSERT_TRUE(batch.ok()) << where << ": " << batch.status();
      ASSERT_EQ(batch->size(), row["rows"].size()) << where;
      for (size_t i = 0; i < batch->size(); ++i) ExpectRows((*batch)[i], row["rows"][i], where + " " + texts[i]);
      continue;
    }
    const std::string a = row["a"].get<std::string>();
    std::optional<std::string> b;
    if (row.contains("b")) b = row["b"].get<std::string>();
    where += a + (b ? " | " + *b : "");
    absl::StatusOr<EncodedTokens> rows =
        EncodeSequences(**tokenizer, a, b ? std::optional<std::string_view>(*b) : std::nullopt, options, lengths);
    if (row.contains("error")) {
      EXPECT_FALSE(rows.ok()) << where << " (Hugging Face: " << row["error"] << ")";
      ++errors;
      continue;
    }
    ASSERT_TRUE(rows.ok()) << where << ": " << rows.status();
    ExpectRows(*rows, row, where);
    windows += rows->overflowing.size();
  }
  EXPECT_GE(cases, 150u);
  EXPECT_GE(errors, 10u);   // OnlySecond without a pair, a text too short to cut
  EXPECT_GE(windows, 30u);  // strides make overflowing windows
}

TEST(SequenceEncodingTest, NoLengthsGiveTheWholeText) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("lengths/bert-multiple-of-8.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string text = "a b c d e f g h i j k l m n o p q r s t u v w x y z";
  absl::StatusOr<EncodedTokens> whole = EncodeSequences(**tokenizer, text, std::nullopt, {}, {});
  absl::StatusOr<Encoding> plain = (*tokenizer)->Encode(text);
  ASSERT_TRUE(whole.ok() && plain.ok());
  EXPECT_EQ(whole->ids, plain->ids);  // Encode itself never truncates
  EXPECT_EQ(whole->size(), 26u);
  absl::StatusOr<EncodedTokens> cut = EncodeSequences(**tokenizer, text, std::nullopt, {}, SequenceLengths::Of(**tokenizer));
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->size(), 16u);
  EXPECT_TRUE(cut->truncated);
  // Hugging Face's early exit: one-token words up to max_length are all it tokenizes, so nothing overflows.
  EXPECT_TRUE(cut->overflowing.empty());
}

TEST(SequenceEncodingTest, TooManyPairWindowsAreAnErrorNotAnExplosion) {
  // The early exit keeps whole words: one long word (no space for Metaspace to cut at) is kept whole, then cut
  // into windows.
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("unigram/nmt-always.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  std::string long_text;
  for (int i = 0; i < 300; ++i) long_text += "zqxjvk";
  SequenceLengths lengths{.truncation = TruncationParams{.max_length = 8, .stride = 3}};
  absl::StatusOr<EncodedTokens> rows = EncodeSequences(**tokenizer, long_text, long_text, {}, lengths);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("overflowing windows"), std::string::npos) << rows.status();
  // A single text's windows do not combine: any number is fine.
  absl::StatusOr<EncodedTokens> single = EncodeSequences(**tokenizer, long_text, std::nullopt, {}, lengths);
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_GT(single->overflowing.size(), 100u);
}

TEST(SequenceEncodingTest, MaxLengthBelowTheAddedTokensIsAnError) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("wordpiece/uncased.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  SequenceLengths lengths{.truncation = TruncationParams{.max_length = 1}};
  absl::StatusOr<EncodedTokens> rows =
      EncodeSequences(**tokenizer, "hello", std::nullopt, {.add_special_tokens = true}, lengths);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("less than the 2 tokens"), std::string::npos) << rows.status();
  lengths.truncation->max_length = 4;
  lengths.truncation->stride = 2;  // 4 - 2 added = 2: the stride must be less
  rows = EncodeSequences(**tokenizer, "a b c d e f", std::nullopt, {.add_special_tokens = true}, lengths);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("stride"), std::string::npos) << rows.status();
}

}  // namespace
}  // namespace tokvec
