// Sentence pairs (tokenizer/sequence_encoding.h) and Decode's skip_special_tokens against Hugging Face:
// tests/data/pairs/golden.json (scripts/gen_pairs_files.mjs, tokenizers 0.23.2) holds its encode(a, b) ids, type
// ids, sequence ids and offsets with and without special tokens, and decode(ids, skip_special_tokens=true), on
// files with each post-processor kind (TemplateProcessing, also reordered and in a Sequence; RobertaProcessing;
// BertProcessing; ByteLevel; none).
#include <memory>
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
      absl::StatusOr<PairEncoding> pair =
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
