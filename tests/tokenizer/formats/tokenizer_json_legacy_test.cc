// tokenizer.json shapes of files on the Hub that Hugging Face still reads. A "model" without "type" (written by
// tokenizers versions before the field existed, e.g. bert-base-uncased's and T5's): Hugging Face takes the first
// model kind whose fields are all there (BPE, WordPiece, WordLevel, Unigram; tokenizers/src/models/mod.rs), so
// tokvec must read each fixture of tests/data with "type" removed to the same tokenizer: same kind, same ids and
// offsets on text of every script. A Strip before Metaspace: a white-space-only text normalizes to nothing and
// gets no "▁". `make conformance` checks the generated files (tests/data/legacy) against Hugging Face itself.
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::unique_ptr<Tokenizer> FromText(const std::string& text, const std::string& name) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(text, name);
  EXPECT_TRUE(spec.ok()) << name << ": " << spec.status();
  if (!spec.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(*spec));
  EXPECT_TRUE(tokenizer.ok()) << name << ": " << tokenizer.status();
  return tokenizer.ok() ? std::move(*tokenizer) : nullptr;
}

// The file with model.type removed (and the model's other fields as they were).
std::string Untyped(const std::string& text) {
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(text);
  json["model"].erase("type");
  return json.dump();
}

const char* const kTexts[] = {
    "Hello world! The quick brown fox, isn't it? 1234567 ünïcödé",
    "  leading spaces and\ttabs\nand lines  ",
    "日本語のテキストと、한국어 텍스트와 Ελληνικά",
    "",
};

TEST(UntypedTokenizerJsonTest, EveryKindReadsAsWithItsType) {
  const std::vector<std::pair<std::string, ModelType>> files = {
      {"wordpiece/uncased.json", ModelType::kWordPiece},  {"wordpiece/cased.json", ModelType::kWordPiece},
      {"unigram/nmt-always.json", ModelType::kUnigram},   {"unigram/custom-first.json", ModelType::kUnigram},
      {"spm_bpe/llama.json", ModelType::kChar},           {"pretok/smollm.json", ModelType::kByte},
      {"added/byte-added.json", ModelType::kByte},        {"affix_bpe/char-suffix.json", ModelType::kChar},
      {"legacy/wordlevel-bert-words.json", ModelType::kWordLevel},
  };
  for (const auto& [name, type] : files) {
    const std::string typed_text = ReadData(name);
    ASSERT_FALSE(typed_text.empty()) << name;
    std::unique_ptr<Tokenizer> typed = FromText(typed_text, name);
    std::unique_ptr<Tokenizer> untyped = FromText(Untyped(typed_text), name + " (untyped)");
    ASSERT_TRUE(typed && untyped) << name;
    EXPECT_EQ(untyped->type(), type) << name;
    EXPECT_EQ(untyped->vocab_size(), typed->vocab_size()) << name;
    for (const char* text : kTexts) {
      absl::StatusOr<Encoding> want = typed->Encode(text, {.allow_all_special = true});
      absl::StatusOr<Encoding> got = untyped->Encode(text, {.allow_all_special = true});
      ASSERT_TRUE(want.ok() && got.ok()) << name;
      EXPECT_EQ(got->ids, want->ids) << name << ": " << text;
      ASSERT_EQ(got->offsets.size(), want->offsets.size()) << name;
      for (size_t i = 0; i < got->offsets.size(); ++i) {
        EXPECT_EQ(got->offsets[i].begin, want->offsets[i].begin) << name << " token " << i;
        EXPECT_EQ(got->offsets[i].end, want->offsets[i].end) << name << " token " << i;
      }
    }
  }
}

// The same through the DOM alone (the fast path diverts an object vocab, so the kind must be told from the
// tables too: both ways give one tokenizer).
TEST(UntypedTokenizerJsonTest, FastPathAndDomAgree) {
  const std::string text = Untyped(ReadData("wordpiece/uncased.json"));
  absl::StatusOr<TokenizerSpec> fast = ReadHfTokenizerJson(text, "uncased");
  absl::StatusOr<TokenizerSpec> dom = ReadHfTokenizerJsonViaDom(text, "uncased");
  ASSERT_TRUE(fast.ok() && dom.ok());
  EXPECT_EQ(fast->type, ModelType::kWordPiece);
  EXPECT_EQ(dom->type, ModelType::kWordPiece);
  EXPECT_EQ(fast->wordpiece.size(), dom->wordpiece.size());
}

// Hugging Face's ids (scripts/gen_legacy_files.mjs prints them): nothing for "   " and " \t ", one token for "a  ".
TEST(LegacyTokenizerJsonTest, TextThatNormalizesToNothingGetsNoMetaspace) {
  std::unique_ptr<Tokenizer> tokenizer = FromText(ReadData("legacy/strip-metaspace-nmt.json"), "strip-metaspace-nmt");
  ASSERT_TRUE(tokenizer);
  for (const char* blank : {"   ", " \t ", ""}) {
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(blank);
    ASSERT_TRUE(encoding.ok());
    EXPECT_TRUE(encoding->ids.empty()) << '"' << blank << "\" gave " << encoding->ids.size() << " ids";
  }
  absl::StatusOr<Encoding> word = tokenizer->Encode("a  ");
  ASSERT_TRUE(word.ok());
  EXPECT_EQ(word->ids.size(), 1u);
}

TEST(UntypedTokenizerJsonTest, FieldsOfNoKindAreClearErrors) {
  const std::string base = R"({"version": "1.0", "added_tokens": [], "normalizer": null,
    "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": null, "decoder": null, "model": )";
  absl::StatusOr<TokenizerSpec> none = ReadHfTokenizerJson(base + R"({"vocab": {"a": 0}}})", "none.json");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("none.json"));
  EXPECT_THAT(none.status().message(), HasSubstr("no \"type\""));
  absl::StatusOr<TokenizerSpec> unigram_shape = ReadHfTokenizerJson(base + R"({"vocab": 3}})", "v.json");
  ASSERT_FALSE(unigram_shape.ok());
  EXPECT_THAT(unigram_shape.status().message(), HasSubstr("no \"type\""));
  absl::StatusOr<TokenizerSpec> number = ReadHfTokenizerJson(base + R"({"type": 5, "vocab": {}}})", "n.json");
  ASSERT_FALSE(number.ok());
  EXPECT_THAT(number.status().message(), HasSubstr("model.type"));
}

}  // namespace
}  // namespace tokvec
