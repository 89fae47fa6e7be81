// Hugging Face tokenizer.json: what we write reads back to tiktoken's ids; both merge spellings; added tokens;
// add_prefix_space; malformed files name the key.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::unique_ptr<Tokenizer> FromJson(const std::string& text) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(text, "tokenizer.json");
  EXPECT_TRUE(spec.ok()) << spec.status();
  if (!spec.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(spec).value());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

// Exporting each tiktoken encoding and reading it back gives tiktoken's golden ids: the derived merges (with
// ignore_merges) reproduce the rank rule. scripts/conformance.sh checks the same files in Hugging Face itself.
TEST(HfTokenizerJsonTest, ExportedTiktokenEncodingsKeepTiktokensIds) {
  size_t checked = 0;
  for (const char* name : {"gpt2", "cl100k_base"}) {
    std::optional<std::string> path = testing::SharedVocabPath(std::string(name) + ".tiktoken");
    if (!path) continue;
    absl::StatusOr<std::unique_ptr<Tokenizer>> original = Tokenizer::Load(*path);
    ASSERT_TRUE(original.ok()) << original.status();
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(**original);
    ASSERT_TRUE(json.ok()) << json.status();
    std::unique_ptr<Tokenizer> reloaded = FromJson(*json);
    ASSERT_NE(reloaded, nullptr);
    EXPECT_EQ(reloaded->bpe().rule(), BpeModel::Rule::kMergeList);
    EXPECT_EQ(reloaded->FindSpecial("<|endoftext|>"), (*original)->FindSpecial("<|endoftext|>"));
    for (const testing::GoldenCase& golden : testing::TiktokenGoldens()) {
      if (golden.encoding != name) continue;
      absl::StatusOr<Encoding> encoding = reloaded->Encode(golden.text);
      ASSERT_TRUE(encoding.ok()) << encoding.status();
      EXPECT_EQ(testing::DescribeIdMismatch(*reloaded, golden.ids, encoding->ids), "")
          << name << " on '" << golden.text << "'";
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "no .tiktoken files in the shared vocab folder";
}

// A tiny byte-level model: all 256 bytes would be long to spell out, so the vocabulary holds the bytes of
// "abc " ("Ġ" is the space) and the merges a b -> ab, ab c -> abc, Ġ a -> Ġa.
std::string TinyJson(const std::string& merges, const std::string& extra = "") {
  return R"({"version": "1.0", "added_tokens": [{"id": 8, "content": "<|end|>", "special": true}],)" + extra +
         R"("pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
            "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "Ġ": 3, "ab": 4, "abc": 5, "Ġa": 6},
                      "merges": )" +
         merges + "}}";
}

TEST(HfTokenizerJsonTest, BothMergeSpellingsGiveTheSameModel) {
  std::unique_ptr<Tokenizer> strings = FromJson(TinyJson(R"(["a b", "ab c", "Ġ a"])"));
  std::unique_ptr<Tokenizer> pairs = FromJson(TinyJson(R"([["a", "b"], ["ab", "c"], ["Ġ", "a"]])"));
  ASSERT_NE(strings, nullptr);
  ASSERT_NE(pairs, nullptr);
  // "abc abc": pieces "abc" and " abc"; in " abc", a+b (rank 0) merges before Ġ+a (rank 2): [Ġ, abc].
  // " ac": Ġ+a (rank 2) is the only merge: [Ġa, c].
  for (const Tokenizer* tokenizer : {strings.get(), pairs.get()}) {
    EXPECT_EQ(tokenizer->Encode("abc abc")->ids, (std::vector<TokenId>{5, 3, 5}));
    EXPECT_EQ(tokenizer->Encode(" ac")->ids, (std::vector<TokenId>{6, 2}));
  }
}

// A "type" (or template "id") that is not a string is an error, not an exception: nlohmann's value(key, "") throws
// for it, and fuzz_hf_tokenizer_json found a file with a numeric pre_tokenizer type that ended the process.
TEST(HfTokenizerJsonTest, NonStringTypesAreErrorsNotExceptions) {
  const std::string json = TinyJson(R"(["a b"])");
  for (const char* pre : {R"({"type": 5})", R"({"type": {"x": 1}})",
                          R"({"type": "Sequence", "pretokenizers": [{"type": 7}]})",
                          R"({"type": "Sequence", "pretokenizers": [7, {"type": null}]})"}) {
    nlohmann::json parsed = nlohmann::json::parse(json);
    parsed["pre_tokenizer"] = nlohmann::json::parse(pre);
    absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(parsed.dump(), "tokenizer.json");
    EXPECT_FALSE(spec.ok()) << pre;
  }
  nlohmann::json parsed = nlohmann::json::parse(json);
  parsed["decoder"] = nlohmann::json::parse(R"({"type": 3})");  // a byte-level BPE file's decoder is not read
  EXPECT_NO_THROW((void)ReadHfTokenizerJson(parsed.dump(), "tokenizer.json"));
}

TEST(HfTokenizerJsonTest, AddedTokensAreSpecialTokens) {
  std::unique_ptr<Tokenizer> tokenizer = FromJson(TinyJson(R"(["a b"])"));
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->FindSpecial("<|end|>"), std::optional<TokenId>(8));
  EXPECT_EQ(tokenizer->Encode("ab<|end|>", {.allow_all_special = true})->ids, (std::vector<TokenId>{4, 8}));
  EXPECT_EQ(*tokenizer->Decode({4, 8}), "ab<|end|>");
}

TEST(HfTokenizerJsonTest, AddPrefixSpaceAndIgnoreMerges) {
  std::string json = TinyJson(R"(["a b", "ab c", "Ġ a"])");
  nlohmann::json parsed = nlohmann::json::parse(json);
  parsed["pre_tokenizer"]["add_prefix_space"] = true;
  std::unique_ptr<Tokenizer> prefixed = FromJson(parsed.dump());
  ASSERT_NE(prefixed, nullptr);
  EXPECT_EQ(prefixed->Encode("ac")->ids, (std::vector<TokenId>{6, 2}));  // As " ac".
  absl::StatusOr<Encoding> encoding = prefixed->Encode("ac");
  EXPECT_EQ(encoding->offsets[0].begin, 0u);  // Offsets still point into the input "ac".
  EXPECT_EQ(encoding->offsets[1].end, 2u);
  // ignore_merges: a piece that is a token is taken whole, even if its merges would not make it.
  parsed = nlohmann::json::parse(json);
  parsed["model"]["merges"] = nlohmann::json::array({"a b"});
  std::unique_ptr<Tokenizer> merging = FromJson(parsed.dump());
  parsed["model"]["ignore_merges"] = true;
  std::unique_ptr<Tokenizer> ignoring = FromJson(parsed.dump());
  ASSERT_NE(merging, nullptr);
  ASSERT_NE(ignoring, nullptr);
  EXPECT_EQ(merging->Encode("abc")->ids, (std::vector<TokenId>{4, 2}));
  EXPECT_EQ(ignoring->Encode("abc")->ids, (std::vector<TokenId>{5}));
}

TEST(HfTokenizerJsonTest, SplitSequenceIsRead) {
  std::string json = TinyJson(R"(["a b"])");
  nlohmann::json parsed = nlohmann::json::parse(json);
  parsed["pre_tokenizer"] = nlohmann::json::parse(R"({"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": "[a-z]"}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})");
  std::unique_ptr<Tokenizer> tokenizer = FromJson(parsed.dump());
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->Encode("ab")->ids, (std::vector<TokenId>{0, 1}));  // Every letter is its own piece.
  EXPECT_EQ(tokenizer->spec().pre_tokenizer->name(), "[a-z]");
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(text, "tokenizer.json");
  return spec.ok() ? "(no error)" : std::string(spec.status().message());
}

TEST(HfTokenizerJsonTest, TruncatedJsonNamesTheKey) {
  std::string json = TinyJson(R"(["a b", "ab c", "Ġ a"])");
  std::string message = ErrorOf(json.substr(0, json.find("\"ab c\"") + 3));
  EXPECT_NE(message.find("model.merges"), std::string::npos) << message;
  EXPECT_NE(message.find("tokenizer.json"), std::string::npos) << message;
}

TEST(HfTokenizerJsonTest, MalformedPartsNameTheKey) {
  EXPECT_NE(ErrorOf(TinyJson(R"(["a b", "a x"])")).find("model.merges[1]"), std::string::npos)
      << ErrorOf(TinyJson(R"(["a b", "a x"])"));
  EXPECT_NE(ErrorOf(TinyJson(R"(["a b", 7])")).find("model.merges[1]"), std::string::npos);
  nlohmann::json parsed = nlohmann::json::parse(TinyJson("[]"));
  parsed["model"]["type"] = "Mystery";
  EXPECT_NE(ErrorOf(parsed.dump()).find("model.type"), std::string::npos) << ErrorOf(parsed.dump());
  parsed = nlohmann::json::parse(TinyJson("[]"));
  parsed["pre_tokenizer"] = {{"type", "Mystery"}};
  EXPECT_NE(ErrorOf(parsed.dump()).find("pre_tokenizer"), std::string::npos) << ErrorOf(parsed.dump());
  parsed = nlohmann::json::parse(TinyJson("[]"));
  parsed["normalizer"] = {{"type", "Precompiled"}};
  EXPECT_NE(ErrorOf(parsed.dump()).find("normalizer.precompiled_charsmap"), std::string::npos) << ErrorOf(parsed.dump());
  parsed["normalizer"] = {{"type", "Nmt"}};
  EXPECT_NE(ErrorOf(parsed.dump()).find("normalizer.type"), std::string::npos) << ErrorOf(parsed.dump());
  parsed = nlohmann::json::parse(TinyJson("[]"));
  parsed.erase("model");
  EXPECT_NE(ErrorOf(parsed.dump()).find("'model'"), std::string::npos) << ErrorOf(parsed.dump());
}

}  // namespace
}  // namespace tokvec
