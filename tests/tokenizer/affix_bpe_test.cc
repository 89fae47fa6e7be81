// BPE with Hugging Face's word affixes (tokenizer/models/bpe/bpe_affixes.h): end_of_word_suffix (CLIP's "</w>"),
// continuing_subword_prefix ("##"), and the BPEDecoder decoder. Expected ids and texts come from Hugging Face
// tokenizers 0.23.2 (npm): tests/data/affix_bpe/golden.json (scripts/gen_affix_bpe_files.mjs), or, for the tiny
// models, as observed with it on the same JSON.
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

std::string DataPath(const std::string& name) {
  return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/affix_bpe/" + name;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> FromJson(const Json& json) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(json.dump(), "test.json");
  if (!spec.ok()) return spec.status();
  return Tokenizer::Create(std::move(spec).value());
}

TEST(AffixBpeTest, GoldensFromHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  const Json golden = Json::parse(*text);
  ASSERT_EQ(golden.size(), 3u);
  for (const auto& [name, cases] : golden.items()) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(name + ".json"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    EXPECT_EQ((*tokenizer)->type(), name == "char-suffix" ? ModelType::kChar : ModelType::kByte);
    ASSERT_GE(cases.size(), 7u);
    for (const auto& c : cases) {
      const std::string input = c["text"].get<std::string>();
      EncodeOptions options;
      options.allow_all_special = true;
      absl::StatusOr<Encoding> plain = (*tokenizer)->Encode(input, options);
      ASSERT_TRUE(plain.ok()) << plain.status();
      EXPECT_EQ(plain->ids, c["ids"].get<std::vector<TokenId>>()) << name << " " << input;
      options.add_special_tokens = true;
      absl::StatusOr<Encoding> special = (*tokenizer)->Encode(input, options);
      ASSERT_TRUE(special.ok()) << special.status();
      EXPECT_EQ(special->ids, c["with_special"].get<std::vector<TokenId>>()) << name << " " << input;
      absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(c["ids"].get<std::vector<TokenId>>());
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(*decoded, c["decoded"].get<std::string>()) << name << " " << input;
    }
  }
}

// A model over code points (WhitespaceSplit is not ByteLevel) with `prefix` and `suffix`, byte_fallback, unk.
Json TinyModel(const std::string& prefix, const std::string& suffix, Json vocab, Json merges, Json decoder) {
  return Json{{"version", "1.0"},
              {"normalizer", nullptr},
              {"pre_tokenizer", nullptr},
              {"decoder", decoder},
              {"model",
               {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", "<unk>"},
                {"continuing_subword_prefix", prefix},
                {"end_of_word_suffix", suffix},
                {"fuse_unk", false},
                {"byte_fallback", true},
                {"vocab", vocab},
                {"merges", merges}}}};
}

std::vector<TokenId> Ids(const Tokenizer& tokenizer, std::string_view text) {
  absl::StatusOr<Encoding> encoding = tokenizer.Encode(text);
  EXPECT_TRUE(encoding.ok()) << encoding.status();
  return encoding.ok() ? encoding->ids : std::vector<TokenId>{};
}

// Observed with tokenizers 0.23.2: a merge of "a" and "##b" makes "ab"; byte fallback takes the bytes of the
// prefixed spelling ("##é" -> <0x23> <0x23> <0xC3> <0xA9>); an unknown first unit is unk, and the next is "##a".
TEST(AffixBpeTest, PrefixMergesDropThePrefixAndFallBackOnPrefixedBytes) {
  const Json vocab = {{"<unk>", 0}, {"a", 1},      {"##b", 2},    {"ab", 3}, {"<0x23>", 4},
                      {"<0xC3>", 5}, {"<0xA9>", 6}, {"##a", 7},    {"aba", 8}};
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      FromJson(TinyModel("##", "", vocab, Json::array({Json::array({"a", "##b"}), Json::array({"ab", "##a"})}),
                         nullptr));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_EQ(Ids(**tokenizer, "ab"), (std::vector<TokenId>{3}));
  EXPECT_EQ(Ids(**tokenizer, "aba"), (std::vector<TokenId>{8}));
  EXPECT_EQ(Ids(**tokenizer, "abé"), (std::vector<TokenId>{3, 4, 4, 5, 6}));
  EXPECT_EQ(Ids(**tokenizer, "ba"), (std::vector<TokenId>{0, 7}));
  EXPECT_EQ(Ids(**tokenizer, "éa"), (std::vector<TokenId>{5, 6, 7}));
  EXPECT_EQ(Ids(**tokenizer, "aab"), (std::vector<TokenId>{1, 7, 2}));
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode({0, 7});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, "<unk> ##a");  // No decoder: spellings joined by spaces.
}

// Observed with tokenizers 0.23.2 (pre_tokenizer WhitespaceSplit there; here the text is one word, so only
// one-word inputs are compared): the suffix goes on the last unit only; BPEDecoder turns it into nothing at
// the end and a space elsewhere.
TEST(AffixBpeTest, SuffixOnTheLastUnitAndBpeDecoder) {
  const Json vocab = {{"<unk>", 0}, {"a", 1}, {"b", 2}, {"a</w>", 3}, {"b</w>", 4}, {"ab</w>", 5}, {"ba", 6},
                      {"ba</w>", 7}};
  const Json merges = Json::array({Json::array({"a", "b</w>"}), Json::array({"b", "a</w>"}), Json::array({"b", "a"})});
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      FromJson(TinyModel("", "</w>", vocab, merges, {{"type", "BPEDecoder"}, {"suffix", "</w>"}}));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_EQ(Ids(**tokenizer, "ab"), (std::vector<TokenId>{5}));
  EXPECT_EQ(Ids(**tokenizer, "ba"), (std::vector<TokenId>{7}));
  EXPECT_EQ(Ids(**tokenizer, "bab"), (std::vector<TokenId>{2, 5}));
  EXPECT_EQ(Ids(**tokenizer, "aca"), (std::vector<TokenId>{1, 0, 3}));
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode({5, 7});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, "ab ba");
  decoded = (*tokenizer)->Decode({1, 0, 3});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, "a<unk>a");
}

TEST(AffixBpeTest, MalformedAffixesAreClearErrors) {
  const Json vocab = {{"<unk>", 0}, {"a", 1}, {"b", 2}, {"ab", 3}};
  // The right side of a merge must begin with the prefix.
  absl::StatusOr<std::unique_ptr<Tokenizer>> bad =
      FromJson(TinyModel("##", "", vocab, Json::array({Json::array({"a", "b"})}), nullptr));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("model.merges[0]"), std::string_view::npos) << bad.status();
  EXPECT_NE(bad.status().message().find("continuing_subword_prefix"), std::string_view::npos) << bad.status();
  Json wrong_type = TinyModel("", "</w>", vocab, Json::array(), nullptr);
  wrong_type["model"]["end_of_word_suffix"] = 3;
  bad = FromJson(wrong_type);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("model.end_of_word_suffix"), std::string_view::npos) << bad.status();
  Json empty_suffix = TinyModel("", "</w>", vocab, Json::array(), {{"type", "BPEDecoder"}, {"suffix", ""}});
  bad = FromJson(empty_suffix);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("decoder.suffix"), std::string_view::npos) << bad.status();
  // Byte-level: an affix outside GPT-2's byte alphabet names the key.
  Json byte_level = TinyModel("", "\xE2\x82\xAC", vocab, Json::array(), nullptr);
  byte_level["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  bad = FromJson(byte_level);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("model.end_of_word_suffix"), std::string_view::npos) << bad.status();
}

}  // namespace
}  // namespace tokvec
