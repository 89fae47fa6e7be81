// The hand-written preset splitters against their oracle, ICU running tiktoken's regexes (split_pre_tokenizer.h):
// identical pieces on every file of ../shared/corpora, on random strings of hard pieces and on random bytes.
#include "tokenizer/pre_tokenizers/preset_pre_tokenizer.h"

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"

namespace tokvec {
namespace {

// "" when both cut `text` alike; else the first differing piece of each.
std::string CompareSplits(const PreTokenizer& fast, const PreTokenizer& oracle, std::string_view text) {
  std::vector<Piece> a, b;
  EXPECT_TRUE(fast.Split(text, &a).ok());
  EXPECT_TRUE(oracle.Split(text, &b).ok());
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i].begin == b[i].begin && a[i].end == b[i].end) continue;
    auto show = [&](const std::vector<Piece>& pieces) {
      return i < pieces.size() ? fmt::format("[{}, {}) '{}'", pieces[i].begin, pieces[i].end,
                                             text.substr(pieces[i].begin, pieces[i].end - pieces[i].begin))
                               : std::string("(none)");
    };
    return fmt::format("piece {}: fast {} vs regex {}", i, show(a), show(b));
  }
  return "";
}

const char* const kPresets[] = {"gpt2", "cl100k", "o200k"};

std::vector<std::string> Pieces(const PreTokenizer& split, std::string_view text) {
  std::vector<Piece> pieces;
  EXPECT_TRUE(split.Split(text, &pieces).ok());
  std::vector<std::string> out;
  for (const Piece& p : pieces) out.emplace_back(text.substr(p.begin, p.end - p.begin));
  return out;
}

// By hand from the regexes: the contraction before the letters, ` ?\p{L}+` taking one space, `\s+(?!\S)`
// leaving the last space of a run for the next word, numbers in threes for cl100k/o200k, o200k's case words.
TEST(PresetSplitterTest, HandChecked) {
  EXPECT_EQ(Pieces(*MakePresetSplitter("gpt2"), "I'm  here's 42x\n\n"),
            (std::vector<std::string>{"I", "'m", " ", " here", "'s", " 42", "x", "\n\n"}));
  EXPECT_EQ(Pieces(*MakePresetSplitter("cl100k"), "I'M 12345 hi!!\n\n x"),
            (std::vector<std::string>{"I", "'M", " ", "123", "45", " hi", "!!\n\n", " x"}));
  EXPECT_EQ(Pieces(*MakePresetSplitter("o200k"), "HTTPServer camelCase"),
            (std::vector<std::string>{"HTTPServer", " camel", "Case"}));
}

TEST(PresetSplitterTest, EqualsTheRegexOnEverySharedCorpus) {
  const std::filesystem::path corpora = std::filesystem::path(TOKVEC_SHARED_DIR) / "corpora";
  if (!std::filesystem::exists(corpora)) GTEST_SKIP() << corpora << " not found";
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpora)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  for (const char* preset : kPresets) {
    std::unique_ptr<PreTokenizer> fast = MakePresetSplitter(preset);
    std::unique_ptr<PreTokenizer> oracle = *MakeRegexSplitPreTokenizer(preset);
    ASSERT_NE(fast, nullptr);
    double fast_seconds = 0, oracle_seconds = 0, bytes = 0;
    for (const std::string& file : files) {
      absl::StatusOr<std::string> text = ReadFile(file);
      ASSERT_TRUE(text.ok());
      std::vector<Piece> pieces;
      auto t0 = std::chrono::steady_clock::now();
      ASSERT_TRUE(fast->Split(*text, &pieces).ok());
      auto t1 = std::chrono::steady_clock::now();
      pieces.clear();
      ASSERT_TRUE(oracle->Split(*text, &pieces).ok());
      auto t2 = std::chrono::steady_clock::now();
      fast_seconds += std::chrono::duration<double>(t1 - t0).count();
      oracle_seconds += std::chrono::duration<double>(t2 - t1).count();
      bytes += static_cast<double>(text->size());
      ASSERT_EQ(CompareSplits(*fast, *oracle, *text), "") << preset << " on " << file;
    }
    std::printf("%s: hand-written %.0f MB/s, ICU regex %.1f MB/s over %.1f MB\n", preset, bytes / fast_seconds / 1e6,
                bytes / oracle_seconds / 1e6, bytes / 1e6);
  }
}

TEST(PresetSplitterTest, EqualsTheRegexOnRandomHardStrings) {
  const std::vector<std::string> hard = {
      "👨‍👩‍👧‍👦", "👍🏽", "e\u0301", "a\u0308\u0304", "\u0915\u094d\u0937", "中文", "한국어", "مرحبا", "שלום", "ภาษาไทย",
      "0123", "٠١٢٣٤", "१२३", "１２３", "²³", "Ⅻ", " ", "  ", "\t", "\r\n", "\n", "\r", "\u00a0", "\u3000", "\u2028",
      "\u0085", "\u000b", "'s", "'S", "'LL", "'ll", "'ve", "'RE", "'d", "'M", "'t", "'ſ", "'", "K", "hello", "World",
      "HTTPServer", "camelCase", "ǅ", "ǈ", "ß", "İ", "ﬁ", "/", "//", "!!", "...", "#", "\u200d", "\u0301", "ʰ", "々",
      "x", "Ab", "aB", "\ufeff", "𝕳𝖊𝖑𝖑𝖔", "\xff", "\xc3", "\xe2\x82"};
  std::mt19937 rng(99);
  for (const char* preset : kPresets) {
    std::unique_ptr<PreTokenizer> fast = MakePresetSplitter(preset);
    std::unique_ptr<PreTokenizer> oracle = *MakeRegexSplitPreTokenizer(preset);
    for (int trial = 0; trial < 20000; ++trial) {
      std::string text;
      for (int k = rng() % 12; k >= 0; --k) text += hard[rng() % hard.size()];
      ASSERT_EQ(CompareSplits(*fast, *oracle, text), "") << preset << " on '" << text << "'";
    }
    for (int trial = 0; trial < 5000; ++trial) {
      std::string text(rng() % 40, '\0');
      for (char& c : text) c = static_cast<char>(rng() % 256);
      ASSERT_EQ(CompareSplits(*fast, *oracle, text), "") << preset << " on random bytes, trial " << trial;
    }
  }
}

// gpt2 and cl100k split ASCII text 64 bytes at a time from class masks (AsciiWindows): long mixes of ASCII runs,
// white space of every kind, apostrophes that do and do not start contractions, long numbers, and a few non-ASCII
// characters, so that windows start and stop at every kind of byte.
TEST(PresetSplitterTest, EqualsTheRegexOnLongAsciiMixes) {
  const std::vector<std::string> parts = {
      " ",  "  ", "   ", "\n", "\n\n", "\t", "\r\n", "\x0b", "\x0c", "a",  "Zz", "word", "Hello", "9",  "12",  "2024",
      ".",  ",",  "...", "'",  "'s",   "'ll", "'RE",  "n't",    "\"", "-",  "_",    "(",     "é",  "中", "\u00a0",
      "\u2028", "\xff", "x'", " '", "\t'", "\n'd", "0'", "123456", "1234567", ".\n", "..\n\n", " \n", "\n ",
      "\n\t", " .", "\t.", ".x", "\r", "!?", " \n \n "};
  std::mt19937 rng(64);
  for (const char* preset : kPresets) {
    std::unique_ptr<PreTokenizer> fast = MakePresetSplitter(preset);
    std::unique_ptr<PreTokenizer> oracle = *MakeRegexSplitPreTokenizer(preset);
    for (int trial = 0; trial < 5000; ++trial) {
      std::string text;
      const size_t length = 60 + rng() % 300;
      const size_t odd = 1 + rng() % 8;  // some texts get few non-ASCII and apostrophe parts, some many
      while (text.size() < length) {
        const std::string& part = parts[rng() % parts.size()];
        const bool plain = static_cast<unsigned char>(part[0]) < 0x80 && part.find('\'') == std::string::npos;
        if (plain || rng() % odd == 0) text += part;
      }
      ASSERT_EQ(CompareSplits(*fast, *oracle, text), "") << preset << " on '" << text << "'";
    }
  }
}

// The ASCII runs are measured 16 bytes at a time where 16 bytes remain (AsciiRunEnd): runs of every length
// from 1 to 40, of each case mix, ending at every kind of byte, at the end of the text or not.
TEST(PresetSplitterTest, EqualsTheRegexOnAsciiRunsOfEveryLength) {
  const std::vector<std::string> after = {"", " ", "x", "'s", "9", ".", "\n", "\xc3\xa9", "\xff", "Z", "_", "@", "[", "`", "{"};
  for (const char* preset : kPresets) {
    std::unique_ptr<PreTokenizer> fast = MakePresetSplitter(preset);
    std::unique_ptr<PreTokenizer> oracle = *MakeRegexSplitPreTokenizer(preset);
    for (size_t length = 1; length <= 40; ++length) {
      for (const std::string run : {std::string(length, 'a'), std::string(length, 'Q'),
                                    std::string(length / 2, 'Q') + std::string(length - length / 2, 'a'),
                                    std::string(length / 2, 'a') + std::string(length - length / 2, 'Q')}) {
        for (const std::string& next : after) {
          for (const std::string& before : {std::string(), std::string(" "), std::string("1")}) {
            const std::string text = before + run + next + " tail";
            ASSERT_EQ(CompareSplits(*fast, *oracle, text), "") << preset << " on '" << text << "'";
            ASSERT_EQ(CompareSplits(*fast, *oracle, before + run + next), "") << preset;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tokvec
