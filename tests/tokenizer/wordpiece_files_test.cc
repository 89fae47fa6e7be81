// WordPiece tokenizer.json files (tests/data/wordpiece, made by scripts/gen_wordpiece_files.mjs with Hugging Face
// tokenizers 0.23.2): goldens, BertNormalizer behaviour, offsets, special tokens, threads, malformed files.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string DataPath(const std::string& name) {
  return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/wordpiece/" + name;
}

std::unique_ptr<Tokenizer> LoadFile(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(name));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

std::vector<std::string> Tokens(const Tokenizer& tokenizer, std::string_view text) {
  absl::StatusOr<Encoding> encoding = tokenizer.Encode(text);
  EXPECT_TRUE(encoding.ok()) << encoding.status();
  std::vector<std::string> out;
  if (encoding.ok()) {
    for (TokenId id : encoding->ids) out.push_back(tokenizer.TokenSpelling(id));
  }
  return out;
}

using Strings = std::vector<std::string>;

// Hugging Face matches added tokens always: compare with --allow-special's behaviour.
TEST(WordPieceFilesTest, GoldensFromHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  nlohmann::json golden = nlohmann::json::parse(*text);
  ASSERT_GE(golden["cases"].size(), 50u);
  EncodeOptions all;
  all.allow_all_special = true;
  for (const auto& c : golden["cases"]) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(c["file"].get<std::string>());
    ASSERT_NE(tokenizer, nullptr);
    const std::string input = c["text"].get<std::string>();
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(input, all);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(encoding->ids, c["ids"].get<std::vector<TokenId>>()) << c["file"] << " " << input;
    std::vector<std::string> spelled;
    for (TokenId id : encoding->ids) spelled.push_back(tokenizer->TokenSpelling(id));
    EXPECT_EQ(spelled, c["tokens"].get<std::vector<std::string>>()) << c["file"] << " " << input;
    absl::StatusOr<std::string> decoded = tokenizer->Decode(c["ids"].get<std::vector<TokenId>>());
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, c["decoded"].get<std::string>()) << c["file"] << " " << input;
  }
}

TEST(WordPieceFilesTest, UncasedNormalizer) {
  std::unique_ptr<Tokenizer> uncased = LoadFile("uncased.json");
  ASSERT_NE(uncased, nullptr);
  // Lowercase and accents stripped (strip_accents null follows lowercase).
  EXPECT_EQ(Tokens(*uncased, "HÉLLO"), (Strings{"hell", "##o"}));
  // Control characters, NUL, U+FFFD and zero-width space are dropped; they do not cut words.
  EXPECT_EQ(Tokens(*uncased, std::string("hel\x01lo\u200b") + '\0' + "\ufffd"), (Strings{"hell", "##o"}));
  // Tab, newline, NBSP are white space.
  EXPECT_EQ(Tokens(*uncased, "a\tb\nc\u00a0d"), (Strings{"a", "b", "c", "d"}));
  // CJK ideographs get spaces around them; kana do not.
  EXPECT_EQ(Tokens(*uncased, "猫は猫"), (Strings{"猫", "は", "猫"}));
}

TEST(WordPieceFilesTest, CasedKeepsCaseAndAccents) {
  std::unique_ptr<Tokenizer> cased = LoadFile("cased.json");
  ASSERT_NE(cased, nullptr);
  const Strings hello = Tokens(*cased, "Hello");
  ASSERT_FALSE(hello.empty());
  EXPECT_EQ(hello[0][0], 'H');
  // "é" is not in the cased vocabulary (nor "##é"): the word is unk.
  EXPECT_EQ(Tokens(*cased, "résumé"), (Strings{"[UNK]"}));
}

TEST(WordPieceFilesTest, ShortWordsBecomeUnkPastTheLimit) {
  std::unique_ptr<Tokenizer> short_words = LoadFile("short-words.json");  // max_input_chars_per_word 8
  ASSERT_NE(short_words, nullptr);
  EXPECT_EQ(Tokens(*short_words, "abcdefghi"), (Strings{"[UNK]"}));
  EXPECT_NE(Tokens(*short_words, "the"), (Strings{"[UNK]"}));
}

TEST(WordPieceFilesTest, OffsetsPointIntoTheOriginalBytes) {
  std::unique_ptr<Tokenizer> uncased = LoadFile("uncased.json");
  ASSERT_NE(uncased, nullptr);
  // "Héllo" normalizes to "hello" = "hell" "##o"; "é" is two bytes of the input.
  absl::StatusOr<Encoding> encoding = uncased->Encode("Héllo, 吾輩");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  ASSERT_EQ(encoding->offsets.size(), 5u);
  const std::vector<std::pair<size_t, size_t>> expected = {{0, 5}, {5, 6}, {6, 7}, {8, 11}, {11, 14}};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(encoding->offsets[i].begin, expected[i].first) << i;
    EXPECT_EQ(encoding->offsets[i].end, expected[i].second) << i;
  }
  // An unk covers its whole word.
  encoding = uncased->Encode("ab \u0fff\u0ffe");
  ASSERT_TRUE(encoding.ok());
  ASSERT_EQ(encoding->ids.back(), uncased->spec().wordpiece.unk_id());
  EXPECT_EQ(encoding->offsets.back().begin, 3u);
  EXPECT_EQ(encoding->offsets.back().end, 9u);
}

TEST(WordPieceFilesTest, SpecialTokensOnlyWhenAllowed) {
  std::unique_ptr<Tokenizer> uncased = LoadFile("uncased.json");
  ASSERT_NE(uncased, nullptr);
  absl::StatusOr<Encoding> plain = uncased->Encode("[CLS] hi");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(uncased->TokenSpelling(plain->ids[0]), "[");  // Ordinary text: "[" "cl" ... "]".
  EncodeOptions allow;
  allow.allowed_special = {"[CLS]"};
  absl::StatusOr<Encoding> special = uncased->Encode("[CLS] hi", allow);
  ASSERT_TRUE(special.ok());
  EXPECT_EQ(special->ids[0], 2u);
  EXPECT_EQ(special->offsets[0].end, 5u);
}

TEST(WordPieceFilesTest, InvalidUtf8IsAnError) {
  std::unique_ptr<Tokenizer> uncased = LoadFile("uncased.json");
  ASSERT_NE(uncased, nullptr);
  absl::StatusOr<Encoding> encoding = uncased->Encode("ok \xC3(");
  EXPECT_EQ(encoding.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(encoding.status().message().find("byte offset 3"), std::string::npos) << encoding.status();
}

TEST(WordPieceFilesTest, SharedTokenizerGivesTheSameOnEveryThread) {
  std::unique_ptr<Tokenizer> uncased = LoadFile("uncased.json");
  ASSERT_NE(uncased, nullptr);
  const std::vector<std::string> texts = {"Hello, World!", "Héllo wörld 吾輩は猫である。", "unaffable don't",
                                          std::string(300, 'a'), "tabs\tand\nnewlines", ""};
  std::vector<std::vector<TokenId>> expected;
  std::vector<std::string> decoded;
  for (const std::string& text : texts) {
    expected.push_back(uncased->Encode(text)->ids);
    decoded.push_back(*uncased->Decode(expected.back()));
  }
  constexpr int kThreads = 6;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        const size_t i = static_cast<size_t>(round * 7 + t) % texts.size();
        absl::StatusOr<Encoding> encoding = uncased->Encode(texts[i]);
        absl::StatusOr<std::string> text = uncased->Decode(expected[i]);
        if (!encoding.ok() || encoding->ids != expected[i] || !text.ok() || *text != decoded[i]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

// `tokvec encode --threads N` cuts a whole text where FindCut says: chunks must give the ids of the whole.
TEST(WordPieceFilesTest, ChunksAtFindCutGiveTheIdsOfTheWhole) {
  absl::StatusOr<std::string> corpus = ReadFile(std::string(TOKVEC_SHARED_DIR) + "/corpora/botchan.txt");
  if (!corpus.ok()) GTEST_SKIP() << "shared corpora not found";
  const std::string text = corpus->substr(0, 200000) + " Héllo 吾輩\u200b\tX\u0301 \u0301";
  for (const char* name : {"uncased.json", "cased.json", "short-words.json", "whitespace-split.json"}) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(name);
    ASSERT_NE(tokenizer, nullptr);
    std::vector<TokenId> whole;
    ASSERT_TRUE(tokenizer->EncodeIds(text, {}, &whole).ok());
    std::vector<TokenId> chunked;
    size_t pos = 0;
    int cuts = 0;
    while (pos < text.size()) {
      std::string_view rest = std::string_view(text).substr(pos);
      size_t cut = tokenizer->FindCut(rest, 997, {});
      if (cut == 0) cut = rest.size();
      cuts += cut < rest.size();
      ASSERT_TRUE(tokenizer->EncodeIds(rest.substr(0, cut), {}, &chunked, pos).ok());
      pos += cut;
    }
    EXPECT_GT(cuts, 100) << name;
    EXPECT_EQ(chunked, whole) << name;
  }
}

// A minimal WordPiece file, then one thing broken at a time.
nlohmann::json TinyWordPiece() {
  return nlohmann::json::parse(R"({
    "normalizer": {"type": "BertNormalizer", "lowercase": true},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}]},
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
    "added_tokens": [{"id": 0, "content": "[UNK]", "special": true}],
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "a": 1, "##b": 2}}})");
}

std::string ErrorOf(const nlohmann::json& json) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(json.dump(), "tokenizer.json");
  if (spec.ok()) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(spec).value());
    return tokenizer.ok() ? "" : std::string(tokenizer.status().message());
  }
  return std::string(spec.status().message());
}

TEST(WordPieceFilesTest, TinyFileLoads) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(TinyWordPiece().dump(), "tokenizer.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(spec).value());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_EQ((*tokenizer)->Encode("AB a c")->ids, (std::vector<TokenId>{1, 2, 1, 0}));
  EXPECT_EQ(*(*tokenizer)->Decode({1, 2, 1}), "ab a");
}

TEST(WordPieceFilesTest, MalformedFilesNameTheKey) {
  nlohmann::json json = TinyWordPiece();
  json["model"].erase("vocab");
  EXPECT_NE(ErrorOf(json).find("key 'model.vocab': missing"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["model"]["unk_token"] = "<unk>";
  EXPECT_NE(ErrorOf(json).find("unk token '<unk>' is not in the vocabulary"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["model"]["vocab"]["a"] = "one";
  EXPECT_NE(ErrorOf(json).find("model.vocab.a"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["model"]["vocab"]["a"] = 1.5;
  EXPECT_NE(ErrorOf(json).find("non-negative integer"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["model"]["vocab"]["##b"] = 1;
  EXPECT_NE(ErrorOf(json).find("id 1 is given to two tokens"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["model"]["max_input_chars_per_word"] = -1;
  EXPECT_NE(ErrorOf(json).find("model.max_input_chars_per_word"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["pre_tokenizer"] = {{"type", "ByteLevel"}};
  EXPECT_NE(ErrorOf(json).find("not supported with WordPiece"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["decoder"] = {{"type", "ByteLevel"}};
  EXPECT_NE(ErrorOf(json).find("key 'decoder'"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["normalizer"]["lowercase"] = "yes";
  EXPECT_NE(ErrorOf(json).find("normalizer.lowercase"), std::string::npos) << ErrorOf(json);
  json = TinyWordPiece();
  json["added_tokens"][0]["content"] = "[MASK]";
  EXPECT_NE(ErrorOf(json).find("which is the vocabulary token '[UNK]'"), std::string::npos) << ErrorOf(json);
}

// BertPreTokenizer / WhitespaceSplit files are cut before ASCII white space for chunked encodes; a pre-tokenizer
// Sequence (the general reader) offers no cut, so the text is encoded in one piece.
TEST(WordPieceFilesTest, OnlyTheFastPreTokenizersOfferCuts) {
  const std::string text = "hello world 123 again, and again";
  for (const char* name : {"uncased.json", "whitespace-split.json"}) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(name);
    ASSERT_NE(tokenizer, nullptr);
    EXPECT_GT(tokenizer->FindCut(text, text.size() - 1, {}), 0u) << name;
  }
  for (const char* name : {"digits-sequence.json", "punct-sequence.json"}) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(name);
    ASSERT_NE(tokenizer, nullptr);
    EXPECT_EQ(tokenizer->FindCut(text, text.size() - 1, {}), 0u) << name;
  }
}

}  // namespace
}  // namespace tokvec
