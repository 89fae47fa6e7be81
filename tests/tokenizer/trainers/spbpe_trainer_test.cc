// SentencePiece-style BPE training (tokenizer/trainers/spbpe_trainer.h): the written tokenizer.json loads with the
// Llama-2 layout (<unk> <s> </s>, 256 byte tokens, the alphabet, merges), round-trips text through byte fallback,
// covers characters as asked and does not depend on threads. Hugging Face's ids on trained files are checked by
// `make conformance` (hf/trained-spbpe/*).
#include "tokenizer/trainers/spbpe_trainer.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/text/utf8.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

std::string CorpusFile() {
  const std::string path = ::testing::TempDir() + "/spbpe_corpus.txt";
  std::string text;
  for (const char* name : {"botchan.txt", "wagahaiwa_nekodearu.txt"}) {
    absl::StatusOr<std::string> part = ReadFile(std::string(TOKVEC_SHARED_DIR) + "/corpora/" + name);
    if (part.ok()) text += part->substr(0, 150000);
  }
  if (text.empty()) {
    std::printf("[ note ] ../shared/corpora absent: a generated text\n");
    for (int i = 0; i < 3000; ++i) text += "the lowest newer wider 東京 lower newest, widest! café\n";
  }
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

std::unique_ptr<Tokenizer> LoadJson(const std::string& json, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name;
  EXPECT_TRUE(WriteFileAtomically(path, json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? *std::move(tokenizer) : nullptr;
}

TEST(SpBpeTrainerTest, WritesTheLlamaLayoutAndRoundTripsText) {
  const std::string corpus = CorpusFile();
  SpBpeReport report;
  absl::StatusOr<std::string> json = TrainSpBpe({corpus}, {.vocab_size = 3000, .threads = 1}, &report);
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json j = nlohmann::json::parse(*json);
  const nlohmann::json& vocab = j["model"]["vocab"];
  EXPECT_EQ(vocab.size(), 3000u);
  EXPECT_EQ(vocab["<unk>"], 0);
  EXPECT_EQ(vocab["<s>"], 1);
  EXPECT_EQ(vocab["</s>"], 2);
  EXPECT_EQ(vocab["<0x00>"], 3);
  EXPECT_EQ(vocab["<0xFF>"], 258);
  // The alphabet (in byte order) follows the byte tokens, ▁ among it; merged pieces after.
  ASSERT_TRUE(vocab.contains("\xE2\x96\x81"));
  EXPECT_GE(vocab["\xE2\x96\x81"].get<size_t>(), 259u);
  EXPECT_LT(vocab["\xE2\x96\x81"].get<size_t>(), 259u + report.alphabet);
  EXPECT_LT(vocab["a"].get<size_t>(), vocab["\xE2\x96\x81"].get<size_t>());  // byte order: ASCII first
  EXPECT_EQ(report.merges + report.alphabet + 259, 3000u);
  EXPECT_EQ(j["model"]["merges"].size(), report.merges);
  EXPECT_TRUE(j["model"]["byte_fallback"].get<bool>());

  std::unique_ptr<Tokenizer> tokenizer = LoadJson(*json, "spbpe.json");
  ASSERT_TRUE(tokenizer);
  // Text with characters outside the alphabet (an emoji, a rare CJK character) decodes back exactly.
  const std::string text = "The cat sat on the mat.  吾輩は猫である。 emoji 🎉 and 𠮷!";
  absl::StatusOr<Encoding> encoded = tokenizer->Encode(text);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  absl::StatusOr<std::string> decoded = tokenizer->Decode(encoded->ids);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, text);
  int bytes = 0;
  for (TokenId id : encoded->ids) bytes += id >= 3 && id <= 258;
  EXPECT_GE(bytes, 8) << "the emoji and 𠮷 fall back to their UTF-8 bytes";

  // Threads do not change a byte.
  absl::StatusOr<std::string> two = TrainSpBpe({corpus}, {.vocab_size = 3000, .threads = 2});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, *json);
}

TEST(SpBpeTrainerTest, CharacterCoverageLeavesRareCharactersToBytes) {
  const std::string corpus = CorpusFile();
  SpBpeReport full, part;
  absl::StatusOr<std::string> a = TrainSpBpe({corpus}, {.vocab_size = 3000, .character_coverage = 1.0}, &full);
  absl::StatusOr<std::string> b = TrainSpBpe({corpus}, {.vocab_size = 3000, .character_coverage = 0.95}, &part);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(full.dropped_characters, 0u);
  EXPECT_GT(part.dropped_characters, 0u);
  EXPECT_EQ(full.alphabet, part.alphabet + part.dropped_characters);
}

// --split-digits: no learned piece holds a digit, so each digit encodes alone; without it the frequent numbers
// merge.
TEST(SpBpeTrainerTest, SplitDigitsKeepsEachDigitAlone) {
  const std::string path = ::testing::TempDir() + "/spbpe_digits.txt";
  std::string text;
  for (int i = 0; i < 500; ++i) text += "In 1984 there were 2048 cats, 365 dogs and x2 birds\n";
  ASSERT_TRUE(WriteFileAtomically(path, text).ok());
  absl::StatusOr<std::string> split = TrainSpBpe({path}, {.vocab_size = 330, .split_digits = true});
  absl::StatusOr<std::string> whole = TrainSpBpe({path}, {.vocab_size = 330});
  ASSERT_TRUE(split.ok() && whole.ok());
  const nlohmann::json split_json = nlohmann::json::parse(*split);
  for (const auto& [piece, id] : split_json["model"]["vocab"].items()) {
    if (piece.size() > 1 && piece.front() != '<') {
      EXPECT_EQ(piece.find_first_of("0123456789"), std::string::npos) << piece;
    }
  }
  EXPECT_TRUE(nlohmann::json::parse(*whole)["model"]["vocab"].contains("\xE2\x96\x81" "1984"));
  std::unique_ptr<Tokenizer> tokenizer = LoadJson(*split, "spbpe_digits.json");
  ASSERT_NE(tokenizer, nullptr);
  absl::StatusOr<Encoding> encoded = tokenizer->Encode("In 1984");
  ASSERT_TRUE(encoded.ok());
  std::vector<std::string> tokens;
  for (TokenId id : encoded->ids) tokens.push_back(tokenizer->TokenSpelling(id));
  ASSERT_GE(tokens.size(), 5u);
  EXPECT_THAT(std::vector<std::string>(tokens.end() - 5, tokens.end()),
              ::testing::ElementsAre("\xE2\x96\x81", "1", "9", "8", "4"));
}

// No merge makes a piece longer than --max-piece-length characters (`▁` and multi-byte characters one each), as
// SentencePiece's max_sentencepiece_length; without the limit the long words are learned whole.
TEST(SpBpeTrainerTest, MaxPieceLengthBoundsMergedPieces) {
  const std::string path = ::testing::TempDir() + "/spbpe_long.txt";
  std::string text;
  for (int i = 0; i < 300; ++i) text += "internationalization 日本語の文章です extraordinarily\n";
  ASSERT_TRUE(WriteFileAtomically(path, text).ok());
  auto longest = [](const std::string& json) {
    size_t most = 0;
    const nlohmann::json parsed = nlohmann::json::parse(json);  // alive through the loop
    for (const auto& [piece, id] : parsed["model"]["vocab"].items()) {
      if (piece.front() != '<') most = std::max(most, Utf8Characters(piece));
    }
    return most;
  };
  absl::StatusOr<std::string> capped = TrainSpBpe({path}, {.vocab_size = 400, .max_piece_length = 5});
  absl::StatusOr<std::string> default_cap = TrainSpBpe({path}, {.vocab_size = 400});
  absl::StatusOr<std::string> uncapped = TrainSpBpe({path}, {.vocab_size = 400, .max_piece_length = 0});
  ASSERT_TRUE(capped.ok() && default_cap.ok() && uncapped.ok());
  EXPECT_EQ(longest(*capped), 5u);
  EXPECT_EQ(longest(*default_cap), 16u) << "SentencePiece's default";
  EXPECT_EQ(longest(*uncapped), 21u) << "▁internationalization";
  std::unique_ptr<Tokenizer> tokenizer = LoadJson(*capped, "spbpe_long.json");
  ASSERT_NE(tokenizer, nullptr);
  absl::StatusOr<Encoding> encoded = tokenizer->Encode("internationalization");
  ASSERT_TRUE(encoded.ok());
  EXPECT_GE(encoded->ids.size(), 5u);
}

// What mpirun does: shares counted apart, summed by word in any order, one training: TrainSpBpe's file.
TEST(SpBpeTrainerTest, SharesCountedApartTrainTheSameFile) {
  const std::string corpus = CorpusFile();
  const SpBpeOptions options{.vocab_size = 2500, .threads = 2};
  std::map<std::string, uint64_t> summed;
  for (uint64_t share = 0; share < 3; ++share) {
    absl::StatusOr<std::vector<WordCount>> part = CountSpBpeWords({corpus}, options, share, 3);
    ASSERT_TRUE(part.ok()) << part.status();
    for (const WordCount& w : *part) summed[w.word] += w.count;
  }
  std::vector<WordCount> gathered;
  for (const auto& [word, count] : summed) gathered.push_back({word, count});
  std::shuffle(gathered.begin(), gathered.end(), std::mt19937(5));
  absl::StatusOr<std::string> spread = TrainSpBpeOnWords(gathered, options);
  absl::StatusOr<std::string> single = TrainSpBpe({corpus}, options);
  ASSERT_TRUE(spread.ok() && single.ok()) << spread.status() << single.status();
  EXPECT_EQ(*spread, *single);
}

TEST(SpBpeTrainerTest, Errors) {
  const std::string corpus = CorpusFile();
  auto error = [](const std::vector<std::string>& paths, SpBpeOptions options) {
    absl::StatusOr<std::string> json = TrainSpBpe(paths, options);
    return json.ok() ? std::string("ok") : std::string(json.status().message());
  };
  EXPECT_THAT(error({corpus}, {.vocab_size = 300}), HasSubstr("is smaller than the"));
  EXPECT_THAT(error({corpus}, {.character_coverage = 0.0}), HasSubstr("must be in (0, 1]"));
  EXPECT_THAT(error({corpus}, {.character_coverage = 1.5}), HasSubstr("must be in (0, 1]"));
  const std::string empty = ::testing::TempDir() + "/spbpe_empty.txt";
  ASSERT_TRUE(WriteFileAtomically(empty, " \n\t\n").ok());
  EXPECT_THAT(error({empty}, {}), HasSubstr("no text to learn from"));
  const std::string bad = ::testing::TempDir() + "/spbpe_bad.txt";
  ASSERT_TRUE(WriteFileAtomically(bad, "ok \xFF\xFE bad\n").ok());
  EXPECT_THAT(error({bad}, {}), HasSubstr("spbpe_bad.txt"));
}

}  // namespace
}  // namespace tokvec
