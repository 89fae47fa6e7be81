// tokenizer.json shapes of files on the Hub that Hugging Face still reads. A "model" without "type" (written by
// tokenizers versions before the field existed, e.g. bert-base-uncased's and T5's): Hugging Face takes the first
// model kind whose fields are all there (BPE, WordPiece, WordLevel, Unigram; tokenizers/src/models/mod.rs), so
// tokvec must read each fixture of tests/data with "type" removed to the same tokenizer: same kind, same ids and
// offsets on text of every script. A Strip before Metaspace: a white-space-only text normalizes to nothing and
// gets no "▁". Post-processors, normalizers and decoders without "type" (Hugging Face's untagged fallbacks), a
// post-processor whose fields decide its kind over its "type", old Metaspace / ByteLevel / BPE fields and absent
// sections (scripts/gen_legacy_files.mjs). `make conformance` checks the generated files (tests/data/legacy)
// against Hugging Face itself.
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/sequence_encoding.h"
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

// Everything a legacy file and its modern source give must agree: ids with and without special tokens, pairs (ids
// and type ids) and decode.
void ExpectSameTokenizer(const Tokenizer& want, const Tokenizer& got, const std::string& name) {
  for (const char* text : kTexts) {
    for (const bool add : {false, true}) {
      absl::StatusOr<Encoding> a = want.Encode(text, {.allow_all_special = true, .add_special_tokens = add});
      absl::StatusOr<Encoding> b = got.Encode(text, {.allow_all_special = true, .add_special_tokens = add});
      ASSERT_TRUE(a.ok() && b.ok()) << name;
      EXPECT_EQ(b->ids, a->ids) << name << ": " << text << (add ? " (special tokens)" : "");
      absl::StatusOr<std::string> decoded_a = want.Decode(a->ids);
      absl::StatusOr<std::string> decoded_b = got.Decode(b->ids);
      ASSERT_TRUE(decoded_a.ok() && decoded_b.ok()) << name;
      EXPECT_EQ(*decoded_b, *decoded_a) << name << ": " << text;
    }
    absl::StatusOr<EncodedTokens> a = EncodePair(want, text, "Second text, ünïcödé.", {.add_special_tokens = true});
    absl::StatusOr<EncodedTokens> b = EncodePair(got, text, "Second text, ünïcödé.", {.add_special_tokens = true});
    ASSERT_EQ(a.ok(), b.ok()) << name;
    if (!a.ok()) continue;
    EXPECT_EQ(b->ids, a->ids) << name << ": pair " << text;
    EXPECT_EQ(b->type_ids, a->type_ids) << name << ": pair " << text;
  }
}

// The generated files Hugging Face reads as their source (scripts/gen_legacy_files.mjs checks that with the npm
// peer): tokvec must too.
TEST(LegacyTokenizerJsonTest, ComponentsWithoutTypeAndOlderFieldsReadAsTheirSource) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"legacy/untyped-roberta-bytes.json", "added/byte-added.json"},
      {"legacy/untyped-bert-wordpiece.json", "wordpiece/uncased.json"},
      {"legacy/untyped-template-pairs.json", "pairs/reordered.json"},
      {"legacy/template-typed-bert.json", "pairs/reordered.json"},
      {"legacy/sequence-untyped-template.json", "added/byte-many.json"},
      {"legacy/bytelevel-no-use-regex.json", "pairs/byte-level.json"},
      {"legacy/untyped-llama-components.json", "spm_bpe/llama.json"},
      {"legacy/untyped-char-suffix.json", "affix_bpe/char-suffix.json"},
      {"legacy/untyped-strip-pairs-space.json", "spm_bpe/pairs-space.json"},
      {"legacy/bert-alias-cased.json", "wordpiece/cased.json"},
      {"legacy/untyped-strip-punct.json", "wordpiece/punct-sequence.json"},
      {"legacy/metaspace-prefix-nmt.json", "unigram/nmt-always.json"},
      {"legacy/metaspace-prefix-first.json", "spm_bpe/mistral.json"},
      {"legacy/metaspace-prefix-never.json", "unigram/bytes-never.json"},
      {"legacy/punct-no-behavior.json", "pretok/punct-isolated.json"},
      {"legacy/missing-sections-llama.json", "spm_bpe/no-unk.json"},
  };
  for (const auto& [legacy, source] : files) {
    std::unique_ptr<Tokenizer> want = FromText(ReadData(source), source);
    std::unique_ptr<Tokenizer> got = FromText(ReadData(legacy), legacy);
    ASSERT_TRUE(want && got) << legacy;
    ExpectSameTokenizer(*want, *got, legacy);
  }
}

// Hugging Face tries RobertaProcessing, then BertProcessing, then the others, and the first two do not check
// "type": a "BertProcessing" with trim_offsets and add_prefix_space is RobertaProcessing (pair <cls> A <sep><sep>
// B <sep>, type ids 0), a "RobertaProcessing" without them BertProcessing (type ids 1 on B).
TEST(LegacyTokenizerJsonTest, PostProcessorFieldsDecideItsKindOverItsType) {
  auto retyped = [](const std::string& source, const std::string& type) {
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(ReadData(source));
    json["post_processor"]["type"] = type;
    return json.dump();
  };
  std::unique_ptr<Tokenizer> roberta = FromText(retyped("legacy/bert-typed-roberta-fields.json", "RobertaProcessing"),
                                                "roberta");
  std::unique_ptr<Tokenizer> bert_typed = FromText(ReadData("legacy/bert-typed-roberta-fields.json"), "bert-typed");
  ASSERT_TRUE(roberta && bert_typed);
  ExpectSameTokenizer(*roberta, *bert_typed, "bert-typed-roberta-fields");
  std::unique_ptr<Tokenizer> bert = FromText(retyped("legacy/roberta-typed-bert-fields.json", "BertProcessing"), "bert");
  std::unique_ptr<Tokenizer> roberta_typed = FromText(ReadData("legacy/roberta-typed-bert-fields.json"), "roberta-typed");
  ASSERT_TRUE(bert && roberta_typed);
  ExpectSameTokenizer(*bert, *roberta_typed, "roberta-typed-bert-fields");
  absl::StatusOr<EncodedTokens> pair = EncodePair(*roberta_typed, "a", "b", {.add_special_tokens = true});
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(pair->type_ids.back(), 1u);  // Bert's layout: B and its [SEP] have type id 1.
}

// A BPE dropout of 0 draws nothing (Hugging Face merges as with null); any other is still refused.
TEST(LegacyTokenizerJsonTest, BpeDropoutZeroReadsAsNull) {
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(ReadData("spm_bpe/llama.json"));
  json["model"]["dropout"] = 0.0;
  std::unique_ptr<Tokenizer> zero = FromText(json.dump(), "zero");
  std::unique_ptr<Tokenizer> null = FromText(ReadData("spm_bpe/llama.json"), "null");
  ASSERT_TRUE(zero && null);
  ExpectSameTokenizer(*null, *zero, "dropout 0");
  json["model"]["dropout"] = 0.1;
  absl::StatusOr<TokenizerSpec> random = ReadHfTokenizerJson(json.dump(), "random.json");
  ASSERT_FALSE(random.ok());
  EXPECT_THAT(random.status().message(), HasSubstr("model.dropout"));
}

// Objects without "type" that fit none of Hugging Face's untagged kinds (it refuses them too) name the key.
TEST(LegacyTokenizerJsonTest, UntypedComponentsOfNoKindAreClearErrors) {
  const std::string source = ReadData("wordpiece/uncased.json");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"post_processor", R"({"add_prefix_space": true, "trim_offsets": false, "use_regex": false})"},
      {"post_processor", R"({"sep": ["[SEP]", 3]})"},
      {"normalizer", R"({"precompiled_charsmap": "AAAA"})"},
      {"decoder", R"({"replacement": "▁", "prepend_scheme": "always"})"},
  };
  for (const auto& [key, value] : cases) {
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(source);
    json[key] = nlohmann::ordered_json::parse(value);
    absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(json.dump(), "bad.json");
    ASSERT_FALSE(spec.ok()) << key << " " << value;
    EXPECT_THAT(spec.status().message(), HasSubstr("key '" + key + "'")) << value;
  }
}

}  // namespace
}  // namespace tokvec
