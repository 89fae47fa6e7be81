// BERT's vocab.txt + tokenizer_config.json (ReadBertVocabTxt): the tokenizer built from them must equal the
// tokenizer.json Hugging Face makes from the same vocabulary and options. The tokenizer.json files are
// tests/data/wordpiece/{uncased,cased,strip-cased}.json (Hugging Face tokenizers 0.23.2, conformance-checked);
// their vocabularies are written out as vocab.txt with the matching tokenizer_config.json, then both encode the
// goldens' texts and (when ../shared is present) slices of four corpora to the same ids, and decode alike.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/sequence_encoding.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string DataPath(const std::string& name) {
  return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/wordpiece/" + name;
}

class BertVocabTxtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("tokvec_vocab_txt_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // vocab.txt from a tokenizer.json's model.vocab (one line per id), and tokenizer_config.json.
  void WriteVocabTxt(const std::string& tokenizer_json, const nlohmann::json& config) {
    nlohmann::json j = nlohmann::json::parse(*ReadFile(DataPath(tokenizer_json)));
    std::vector<std::string> lines(j["model"]["vocab"].size());
    for (const auto& [token, id] : j["model"]["vocab"].items()) lines.at(id.get<size_t>()) = token;
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    Write("vocab.txt", text);
    Write("tokenizer_config.json", config.dump());
  }
  void Write(const std::string& name, const std::string& text) {
    ASSERT_TRUE(WriteFileAtomically((dir_ / name).string(), text).ok());
  }
  std::string LoadError() {
    absl::StatusOr<std::unique_ptr<Tokenizer>> loaded = Tokenizer::Load(dir_.string());
    EXPECT_FALSE(loaded.ok());
    return loaded.ok() ? "" : std::string(loaded.status().message());
  }

  fs::path dir_;
};

TEST_F(BertVocabTxtTest, EqualsTheTokenizerJsonOfTheSameVocabulary) {
  const std::vector<std::pair<std::string, nlohmann::json>> variants = {
      {"uncased.json", {{"do_lower_case", true}}},
      {"cased.json", {{"do_lower_case", false}, {"strip_accents", nullptr}}},
      {"strip-cased.json", {{"do_lower_case", false}, {"strip_accents", true}, {"tokenize_chinese_chars", false}}}};
  std::vector<std::string> texts;
  nlohmann::json golden = nlohmann::json::parse(*ReadFile(DataPath("golden.json")));
  for (const auto& c : golden["cases"]) texts.push_back(c["text"].get<std::string>());
  texts.push_back("[CLS] text [SEP] with [MASK] and [PAD]");
  const std::string shared = TOKVEC_SHARED_DIR;
  auto prefix = [](const std::string& text, size_t n) {  // at most n bytes, not cutting a UTF-8 sequence
    if (n >= text.size()) return text;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return text.substr(0, n);
  };
  for (const char* corpus : {"wikitext2-valid.txt", "wagahaiwa_nekodearu.txt", "botchan.txt", "udhr"}) {
    const fs::path path = fs::path(shared) / "corpora" / corpus;
    if (fs::is_directory(path)) {  // UDHR: the first 2000 bytes of 80 translations, in name order (many scripts)
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(path)) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (size_t i = 0; i < files.size() && i < 80; ++i) {
        absl::StatusOr<std::string> text = ReadFile(files[i].string());
        if (text.ok()) texts.push_back(prefix(*text, 2000));
      }
    } else if (absl::StatusOr<std::string> text = ReadFile(path.string()); text.ok()) {
      texts.push_back(prefix(*text, 40000));
    }
  }
  if (texts.size() < 50) std::printf("[ note ] ../shared/corpora absent: goldens' texts only\n");
  EncodeOptions all;
  all.allow_all_special = true;
  for (const auto& [file, config] : variants) {
    WriteVocabTxt(file, config);
    absl::StatusOr<std::unique_ptr<Tokenizer>> from_txt = Tokenizer::Load(dir_.string());
    ASSERT_TRUE(from_txt.ok()) << from_txt.status();
    absl::StatusOr<std::unique_ptr<Tokenizer>> from_json = Tokenizer::Load(DataPath(file));
    ASSERT_TRUE(from_json.ok()) << from_json.status();
    EXPECT_EQ((*from_txt)->type(), ModelType::kWordPiece);
    EXPECT_EQ((*from_txt)->vocab_size(), (*from_json)->vocab_size());
    ASSERT_EQ((*from_txt)->special_tokens().size(), (*from_json)->special_tokens().size()) << file;
    for (size_t i = 0; i < (*from_txt)->special_tokens().size(); ++i) {
      EXPECT_EQ((*from_txt)->special_tokens()[i].text, (*from_json)->special_tokens()[i].text);
      EXPECT_EQ((*from_txt)->special_tokens()[i].id, (*from_json)->special_tokens()[i].id);
    }
    size_t tokens = 0;
    for (const std::string& text : texts) {
      for (const EncodeOptions& options : {EncodeOptions{}, all}) {
        absl::StatusOr<Encoding> a = (*from_txt)->Encode(text, options);
        absl::StatusOr<Encoding> b = (*from_json)->Encode(text, options);
        ASSERT_EQ(a.ok(), b.ok()) << file;
        if (!a.ok()) continue;
        ASSERT_EQ(a->ids, b->ids) << file << ": " << text.substr(0, 80);
        tokens += a->ids.size();
      }
      absl::StatusOr<Encoding> ids = (*from_json)->Encode(text);
      if (ids.ok()) EXPECT_EQ(*(*from_txt)->Decode(ids->ids), *(*from_json)->Decode(ids->ids)) << file;
    }
    // With special tokens, one text and pairs: the template Hugging Face's BertTokenizerFast builds from vocab.txt
    // ([CLS] A [SEP] B:1 [SEP]:1) is the tokenizer.json's.
    size_t pairs = 0;
    for (size_t i = 0; i + 1 < texts.size() && i < 40; ++i) {
      const std::string a = prefix(texts[i], 300), b = prefix(texts[i + 1], 300);
      absl::StatusOr<EncodedTokens> x = EncodePair(**from_txt, a, b, {.add_special_tokens = true});
      absl::StatusOr<EncodedTokens> y = EncodePair(**from_json, a, b, {.add_special_tokens = true});
      ASSERT_TRUE(x.ok() && y.ok()) << file;
      EXPECT_EQ(x->ids, y->ids) << file << ": " << a.substr(0, 40);
      EXPECT_EQ(x->type_ids, y->type_ids) << file;
      absl::StatusOr<EncodedTokens> single = EncodeSequences(**from_txt, a, std::nullopt, {.add_special_tokens = true},
                                                             SequenceLengths{});
      absl::StatusOr<EncodedTokens> single_json =
          EncodeSequences(**from_json, a, std::nullopt, {.add_special_tokens = true}, SequenceLengths{});
      ASSERT_TRUE(single.ok() && single_json.ok());
      EXPECT_EQ(single->ids, single_json->ids) << file;
      ++pairs;
    }
    std::printf("[ measured ] %s: %zu pairs and texts with special tokens agree\n", file.c_str(), pairs);
    std::printf("[ measured ] %s: vocab.txt and tokenizer.json agree on %zu texts, %zu tokens\n", file.c_str(),
                texts.size(), tokens);
  }
}

TEST_F(BertVocabTxtTest, DefaultsWithoutTokenizerConfigAreUncased) {
  WriteVocabTxt("uncased.json", nlohmann::json::object());
  fs::remove(dir_ / "tokenizer_config.json");
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(dir_.string());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> a = (*tokenizer)->Encode("HÉLLO World");
  absl::StatusOr<Encoding> b = (*tokenizer)->Encode("hello world");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->ids, b->ids);
}

TEST_F(BertVocabTxtTest, BadFilesAreErrorsNamingTheLineOrKey) {
  Write("vocab.txt", "[PAD]\n[UNK]\nhello\n\nworld\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("vocab.txt:4"), HasSubstr("empty line")));
  Write("vocab.txt", "[PAD]\n[UNK]\nhello\nhello\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("vocab.txt:4"), HasSubstr("listed twice (also on line 3)")));
  Write("vocab.txt", "[PAD]\nhello\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("vocab.txt"), HasSubstr("[UNK]")));
  Write("vocab.txt", "[PAD]\n[UNK]\nhello\n");
  Write("tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("tokenizer_config.json"), HasSubstr("'do_lower_case' must be true or false")));
  Write("tokenizer_config.json", R"({"unk_token": 5})");
  EXPECT_THAT(LoadError(), HasSubstr("'unk_token' must be a token"));
  Write("tokenizer_config.json", "{");
  EXPECT_THAT(LoadError(), HasSubstr("is not a JSON object"));
  Write("tokenizer_config.json", R"({"unk_token": {"content": "[UNK]", "special": true}, "do_lower_case": null})");
  EXPECT_TRUE(Tokenizer::Load(dir_.string()).ok());
  Write("vocab.txt", "");
  EXPECT_FALSE(Tokenizer::Load(dir_.string()).ok());
}

}  // namespace
}  // namespace tokvec
