#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/trainers/bpe_trainer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Tokenizer> TrainWord(std::vector<WordCount> words, size_t merges,
                                     std::vector<std::string> specials = {}) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = merges;
  options.special_tokens = std::move(specials);
  auto trained = TrainBpe(std::move(words), options);
  EXPECT_TRUE(trained.ok()) << trained.status();
  auto tokenizer = MakeTrainedTokenizer(std::move(*trained), std::make_unique<WhitespacePreTokenizer>(), nullptr);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return std::move(*tokenizer);
}

std::unique_ptr<Tokenizer> Load(const std::string& text) {
  auto spec = ReadTokvecModel(text, "m.tokvec");
  EXPECT_TRUE(spec.ok()) << spec.status();
  if (!spec.ok()) return nullptr;
  auto tokenizer = Tokenizer::Create(std::move(*spec));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(*tokenizer) : nullptr;
}

std::string SeedModelText() {
  return WriteTokvecModel(*TrainWord({{"low", 1}, {"lower", 1}, {"newest", 1}, {"wider", 1}}, 4));
}

TEST(ModelFileTest, SeedModelIsReadable) {
  EXPECT_EQ(SeedModelText(),
            "tokvec-bpe 1\ntype word\npre_tokenizer whitespace\nnormalizer none\nunk 0\nend_of_word 1\n"
            "alphabet 10\n2 d\n3 e\n4 i\n5 l\n6 n\n7 o\n8 r\n9 s\n10 t\n11 w\n"
            "merges 4\ne r\ner </w>\nl o\nlo w\nend\n");
}

// Tokens that need escapes: a literal "</w>" in text, backslashes, non-ASCII; specials with spaces.
TEST(ModelFileTest, WordModelRoundTripKeepsIdsAndBytes) {
  std::unique_ptr<Tokenizer> trained = TrainWord(
      {{"</w>x", 5}, {"a\\b", 4}, {"日本</w>", 3}, {"low", 2}, {"<w>", 2}}, 30, {"<|end of text|>", "\\n"});
  const std::string text = WriteTokvecModel(*trained);
  EXPECT_THAT(text, HasSubstr("special 0 <|end\\sof\\stext|>\nspecial 1 \\\\n\n"));
  EXPECT_THAT(text, HasSubstr("\n<\\/w>x </w>\n"));  // Literal "</w>x", then the end-of-word symbol.
  std::unique_ptr<Tokenizer> loaded = Load(text);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->bpe().tokens(), trained->bpe().tokens());
  EXPECT_EQ(loaded->vocab_size(), trained->vocab_size());
  EXPECT_EQ(WriteTokvecModel(*loaded), text);
  const std::string sample = "</w>x a\\b 日本</w> low <|end of text|> unknown";
  EncodeOptions allow;
  allow.allow_all_special = true;
  EXPECT_EQ(loaded->Encode(sample, allow)->ids, trained->Encode(sample, allow)->ids);
  EXPECT_EQ(loaded->special_tokens()[0].text, "<|end of text|>");
  EXPECT_EQ(loaded->special_tokens()[1].text, "\\n");
}

TEST(ModelFileTest, ByteModelRoundTripWithPatternAndNormalizer) {
  BpeTrainerOptions options;
  options.type = ModelType::kByte;
  options.merges = 50;
  options.special_tokens = {"<|endoftext|>"};
  auto trained = TrainBpe({{"hello", 5}, {" world", 4}, {"\xFF\xFE", 3}, {" \n", 2}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  auto pattern = MakeSplitPreTokenizer("cl100k");
  ASSERT_TRUE(pattern.ok()) << pattern.status();
  auto normalizer = MakeNormalizer("nfkc");
  ASSERT_TRUE(normalizer.ok()) << normalizer.status();
  auto tokenizer = MakeTrainedTokenizer(std::move(*trained), std::move(*pattern), std::move(*normalizer));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string text = WriteTokvecModel(**tokenizer);
  EXPECT_THAT(text, HasSubstr("type byte\npre_tokenizer cl100k\nnormalizer nfkc\nspecial 0 <|endoftext|>\n"));
  EXPECT_THAT(text, HasSubstr("\nĠ w\n"));  // GPT-2 spelling of (" ", "w").
  std::unique_ptr<Tokenizer> loaded = Load(text);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->bpe().tokens(), (*tokenizer)->bpe().tokens());
  EXPECT_EQ(loaded->spec().pre_tokenizer->name(), "cl100k");
  EXPECT_EQ(WriteTokvecModel(*loaded), text);
  const std::string sample = "hello world \xFF\xFE ﬁ";
  EXPECT_EQ(loaded->Encode(sample)->ids, (*tokenizer)->Encode(sample)->ids);
}

// Models whose merged tokens do not take ids in merge order (GPT-2's vocab.json) get explicit merge ids.
TEST(ModelFileTest, ExplicitMergeIdsRoundTrip) {
  std::vector<std::string> tokens(256);
  for (int b = 0; b < 256; ++b) tokens[b] = std::string(1, static_cast<char>(b));
  tokens.push_back("bc");  // 256, made by the second merge
  tokens.push_back("ab");  // 257, made by the first merge
  auto bpe = BpeModel::FromMerges(tokens, {{'a', 'b'}, {'b', 'c'}});
  ASSERT_TRUE(bpe.ok()) << bpe.status();
  TokenizerSpec spec{.type = ModelType::kByte,
                     .bpe = std::move(*bpe),
                     .pre_tokenizer = std::move(*MakeSplitPreTokenizer("gpt2")),
                     .normalizer = nullptr,
                     .special_tokens = {},
                     .unk_id = std::nullopt,
                     .end_of_word_id = std::nullopt,
                     .ignore_merges = false,
                     .source = ""};
  auto tokenizer = Tokenizer::Create(std::move(spec));
  ASSERT_TRUE(tokenizer.ok());
  const std::string text = WriteTokvecModel(**tokenizer);
  EXPECT_THAT(text, HasSubstr("merges 2\na b 257\nb c\nend\n"));
  std::unique_ptr<Tokenizer> loaded = Load(text);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->bpe().tokens(), (*tokenizer)->bpe().tokens());
}

struct CorruptCase {
  std::string name;
  std::string from;  // Replace this text of the seed model...
  std::string to;    // ...by this.
  std::string message;
};

TEST(ModelFileTest, CorruptFilesAreErrorsNamingTheLine) {
  const std::vector<CorruptCase> cases = {
      {"magic", "tokvec-bpe 1", "tokvec-bp 1", "m.tokvec line 1: expected 'tokvec-bpe 1'"},
      {"version", "tokvec-bpe 1", "tokvec-bpe 7", "m.tokvec line 1: version 7 is not supported"},
      {"type", "type word", "type words", "m.tokvec line 2: expected 'type word' or 'type byte'"},
      {"normalizer", "normalizer none", "normalizer nfkx", "m.tokvec line 4: "},
      {"bad id", "3 e\n", "x e\n", "m.tokvec line 9: 'x' is not a token id"},
      {"duplicate id", "4 i\n", "3 i\n", "m.tokvec line 10: token 'i' uses id 3, which is already taken"},
      {"gap", "11 w\n", "20 w\n", "m.tokvec line 23: at the end, id 15 is never assigned"},
      {"unknown token", "lo w\n", "lo q\n", "m.tokvec line 22: merge 'lo q' names 'q'"},
      {"end of word inside", "er </w>\n", "er </w>x\n", "m.tokvec line 20: token '</w>x': `</w>` may only end"},
      {"bad escape", "l o\n", "l \\q\n", "m.tokvec line 21: token '\\q': unknown escape `\\q`"},
      {"merge count", "merges 4", "merges 5", "m.tokvec line 23: expected a merge 'LEFT RIGHT'"},
      {"truncated", "lo w\nend\n", "lo w\n", "m.tokvec line 23: the file ends where 'end' was expected (truncated?)"},
      {"truncated in merges", "l o\nlo w\nend\n", "l o\n", "m.tokvec line 22: the file ends where merge 4 of 4"},
      {"trailing", "end\n", "end\nmore\n", "m.tokvec line 24: unexpected text after 'end'"},
  };
  const std::string good = SeedModelText();
  ASSERT_NE(Load(good), nullptr);
  for (const CorruptCase& c : cases) {
    std::string text = good;
    size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.name;
    text.replace(at, c.from.size(), c.to);
    auto spec = ReadTokvecModel(text, "m.tokvec");
    ASSERT_FALSE(spec.ok()) << c.name;
    EXPECT_THAT(std::string(spec.status().message()), HasSubstr(c.message)) << c.name;
  }
}

// SaveTokvecModel writes a file only when it encodes as the tokenizer does, for every tokenizer.json fixture of
// tests/data (every model kind and added-token shape) and a byte model trained here, as trained and read back from
// its tokenizer.json: else FailedPrecondition and no file. The fixture with non-special added tokens (always
// matched, which the model file cannot say) and the one with a "##" prefix (whose merges make no token; writing
// it crashed) are refused; the trained model saves both ways.
TEST(SaveTokvecModelTest, WritesAFileThatEncodesAlikeOrNothing) {
  std::vector<std::pair<std::string, std::unique_ptr<Tokenizer>>> tokenizers;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TOKVEC_SOURCE_DIR) + "/tests/data")) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json" || entry.path().filename() == "golden.json" ||
        path.find("/training/") != std::string::npos) {
      continue;
    }
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
    if (tokenizer.ok()) tokenizers.emplace_back(path, std::move(*tokenizer));
  }
  BpeTrainerOptions options;
  options.type = ModelType::kByte;
  options.merges = 40;
  options.special_tokens = {"<|endoftext|>"};
  absl::StatusOr<TrainedBpe> trained = TrainBpe({{"hello", 5}, {" world", 4}, {" don't", 3}, {" 日本", 2}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  absl::StatusOr<std::unique_ptr<PreTokenizer>> gpt2 = MakeSplitPreTokenizer("gpt2");
  ASSERT_TRUE(gpt2.ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> byte = MakeTrainedTokenizer(std::move(*trained), std::move(*gpt2), nullptr);
  ASSERT_TRUE(byte.ok()) << byte.status();
  absl::StatusOr<std::string> json = WriteHfTokenizerJson(**byte);
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<TokenizerSpec> json_spec = ReadHfTokenizerJson(*json, "trained.json");
  ASSERT_TRUE(json_spec.ok()) << json_spec.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> from_json = Tokenizer::Create(std::move(*json_spec));
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  tokenizers.emplace_back("trained byte model", std::move(*byte));
  tokenizers.emplace_back("its tokenizer.json", std::move(*from_json));

  const std::filesystem::path out = std::filesystem::path(::testing::TempDir()) / "saved.tokvec";
  const std::vector<std::string> texts = {"Hello, world! <|endoftext|> [CLS] don't  stop\n", "日本語 café 123",
                                          "   \t "};
  std::vector<std::string> saved, refused;
  for (const auto& [name, tokenizer] : tokenizers) {
    std::filesystem::remove(out);
    absl::Status status = SaveTokvecModel(*tokenizer, out.string());
    if (!status.ok()) {
      EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << name << ": " << status;
      EXPECT_FALSE(std::filesystem::exists(out)) << name;
      refused.push_back(name);
      continue;
    }
    saved.push_back(name);
    absl::StatusOr<std::unique_ptr<Tokenizer>> reloaded = Tokenizer::Load(out.string());
    ASSERT_TRUE(reloaded.ok()) << name << ": " << reloaded.status();
    for (const std::string& text : texts) {
      absl::StatusOr<Encoding> want = tokenizer->Encode(text, {.allow_all_special = true});
      absl::StatusOr<Encoding> got = (*reloaded)->Encode(text, {.allow_all_special = true});
      ASSERT_EQ(want.ok(), got.ok()) << name;
      if (want.ok()) EXPECT_EQ(got->ids, want->ids) << name << ": " << text;
    }
  }
  std::filesystem::remove(out);
  auto has = [](const std::vector<std::string>& names, std::string_view end) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& name) { return name.ends_with(end); });
  };
  EXPECT_TRUE(has(refused, "added/byte-added.json"));
  EXPECT_TRUE(has(refused, "affix_bpe/prefix.json"));
  EXPECT_TRUE(has(saved, "trained byte model"));
  EXPECT_TRUE(has(saved, "its tokenizer.json"));
}

}  // namespace
}  // namespace tokvec
