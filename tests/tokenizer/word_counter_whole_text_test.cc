// Counting that matches encoding: the counts of CountWords / CountWordsInText / CountWordsInShare are the
// pieces of the pre-tokenizer's Split of each whole text (the oracle: one Split call on the whole text, as
// encode splits it), for the three presets on real text, indented code and CRLF line ends, for any chunk size,
// thread count and number of shares; with split_lines they are the pieces of each line split on its own; a
// regex that cannot be cut is counted per line; normalizers cut only where the normalized whole splits alike.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {
namespace {

using Counts = std::map<std::string, uint64_t>;

Counts AsMap(const std::vector<WordCount>& words) {
  Counts map;
  for (const WordCount& word : words) {
    EXPECT_TRUE(map.emplace(word.word, word.count).second) << "'" << word.word << "' listed twice";
  }
  return map;
}

// The oracle: the pieces of one Split of `text` (normalized first when a normalizer is given).
void AddPiecesOf(std::string_view text, const PreTokenizer& split, const Normalizer* normalizer, Counts* counts) {
  std::string normalized;
  if (normalizer != nullptr) {
    absl::StatusOr<NormalizedText> result = normalizer->Normalize(text);
    ASSERT_TRUE(result.ok()) << result.status();
    normalized = result->text;
    text = normalized;
  }
  std::vector<Piece> pieces;
  ASSERT_TRUE(split.Split(text, &pieces).ok());
  for (const Piece& piece : pieces) ++(*counts)[std::string(text.substr(piece.begin, piece.end - piece.begin))];
}

Counts WholeOracle(std::string_view text, const PreTokenizer& split, const Normalizer* normalizer = nullptr) {
  Counts counts;
  AddPiecesOf(text, split, normalizer, &counts);
  return counts;
}

Counts LinesOracle(std::string_view text, const PreTokenizer& split) {
  Counts counts;
  for (size_t at = 0; at < text.size();) {
    const size_t newline = text.find('\n', at);
    const size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    AddPiecesOf(text.substr(at, end - at), split, nullptr, &counts);
    at = end;
  }
  return counts;
}

// Python- and C++-like code with 4- and 8-space and tab indentation, blank lines and some CRLF line ends.
std::string Code(int functions) {
  std::string code;
  for (int i = 0; i < functions; ++i) {
    const char* end = i % 3 == 0 ? "\r\n" : "\n";
    code += fmt::format("def step_{}(value, other):{}    if value > {}:{}        return other * value{}", i, end, i,
                        end, end);
    code += fmt::format("    for item in range(value):\n        other -= item  # 日本語 naïve\n    return other\n\n");
    code += fmt::format("int f{}(int x) {{\n\tif (x < {}) {{\n\t\treturn x + 1;\n\t}}\n  return 0;\n}}\n", i, i);
  }
  return code;
}

// Real text (the start of several shared corpora, when present) with code between them; for byte models also
// bytes that are not UTF-8 (a cut character), which the presets make pieces of their own.
std::string MixedText(bool utf8 = true) {
  std::string text = Code(40);
  const std::filesystem::path corpora = std::filesystem::path(TOKVEC_SHARED_DIR) / "corpora";
  for (const char* name : {"tinyshakespeare.txt", "wikitext2-test.txt", "wagahaiwa_nekodearu.txt", "udhr/010.txt"}) {
    absl::StatusOr<std::string> file = ReadFile((corpora / name).string());
    if (!file.ok()) continue;
    text += file->substr(0, file->rfind('\n', 12000) + 1) + Code(5);
    if (!utf8) text += "\xE6\x97 cut\n\xE6\x97";
  }
  text += "  \n\n\t \r\n   trailing white space   ";
  return text;
}

// A file of its own per test and process: ctest -j runs this binary's tests side by side.
std::string TempFile(const std::string& name, std::string_view bytes) {
  const std::string unique = fmt::format("{}_{}_{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                                         getpid(), name);
  std::string path = (std::filesystem::temp_directory_path() / unique).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Every way of counting a file gives the pieces of the whole: CountWordsInText, CountWords (also of the file
// twice: the counts double), and the shares 1..5 added up.
void ExpectEveryWayCounts(const std::string& text, const Counts& expected, WordCounterOptions options,
                          const std::string& what) {
  const std::string path = TempFile("tokvec_whole_text_test.txt", text);
  for (size_t chunk_bytes : {7, 64, 4096}) {
    for (size_t threads : {1, 2, 3}) {
      options.chunk_bytes = chunk_bytes;
      options.threads = threads;
      const std::string where = fmt::format("{}, chunks of {}, {} threads", what, chunk_bytes, threads);
      auto in_text = CountWordsInText(text, options);
      ASSERT_TRUE(in_text.ok()) << in_text.status();
      EXPECT_TRUE(AsMap(*in_text) == expected) << "CountWordsInText, " << where;
      auto in_file = CountWords({path}, options);
      ASSERT_TRUE(in_file.ok()) << in_file.status();
      EXPECT_TRUE(AsMap(*in_file) == expected) << "CountWords, " << where;
    }
  }
  options.chunk_bytes = 64;
  for (uint64_t shares = 1; shares <= 5; ++shares) {
    Counts sum;
    for (uint64_t share = 0; share < shares; ++share) {
      options.threads = share % 3 + 1;
      auto part = CountWordsInShare({path, path}, share, shares, options);
      ASSERT_TRUE(part.ok()) << part.status();
      for (const WordCount& w : *part) sum[w.word] += w.count;
    }
    Counts doubled = expected;
    for (auto& [word, count] : doubled) count *= 2;
    EXPECT_TRUE(sum == doubled) << what << ", " << shares << " shares";
  }
  std::filesystem::remove(path);
}

// Whole text: the pieces of one Split; with split_lines: the pieces of each line split on its own.
TEST(WordCounterWholeTextTest, CountsArePiecesOfTheWholeSplitOrOfEachLineForEveryPreset) {
  const std::string text = MixedText(/*utf8=*/false);
  for (const char* preset : {"gpt2", "cl100k", "o200k"}) {
    auto split = MakeSplitPreTokenizer(preset);
    ASSERT_TRUE(split.ok()) << split.status();
    for (const bool split_lines : {false, true}) {
      WordCounterOptions options;
      options.pre_tokenizer = split->get();
      options.split_lines = split_lines;
      const Counts expected = split_lines ? LinesOracle(text, **split) : WholeOracle(text, **split);
      // Pieces that span a line end are counted only from the whole text, as encode cuts them: GPT-2's line end
      // plus indentation (cl100k and o200k end a piece at the line end, but join blank lines).
      const char* spanning = std::string(preset) == "gpt2" ? "\n       " : "\n\n";
      EXPECT_EQ(expected.count(spanning), split_lines ? 0u : 1u) << preset;
      ExpectEveryWayCounts(text, expected, options, fmt::format("{}{}", preset, split_lines ? " --split-lines" : ""));
    }
  }
}

// A regex cannot be cut safely (FindCut returns 0): it is counted per line, with or without split_lines.
TEST(WordCounterWholeTextTest, RegexPatternsCountLines) {
  const std::string text = Code(30);
  auto regex = MakeRegexSplitPreTokenizer("gpt2");  // the ICU regex of the preset
  ASSERT_TRUE(regex.ok()) << regex.status();
  EXPECT_FALSE((*regex)->FindsCuts());
  WordCounterOptions options;
  options.pre_tokenizer = regex->get();
  ExpectEveryWayCounts(text, LinesOracle(text, **regex), options, "regex");
}

// Whitespace words never hold white space, so both ways give the same counts.
TEST(WordCounterWholeTextTest, WordModelsCountTheSameEitherWay) {
  const std::string text = MixedText();
  WhitespacePreTokenizer words;
  WordCounterOptions options;
  options.pre_tokenizer = &words;
  options.require_utf8 = true;
  const Counts expected = WholeOracle(text, words);
  EXPECT_EQ(expected, LinesOracle(text, words));
  ExpectEveryWayCounts(text, expected, options, "whitespace");
  options.split_lines = true;
  ExpectEveryWayCounts(text, expected, options, "whitespace --split-lines");
}

// With a normalizer the counts are the pieces of the normalized whole: cuts sit only where normalizing the parts
// on their own gives the normalized whole, split alike. The text holds what normalizers change across a cut if
// cut carelessly: combining marks after white space, compatibility numbers that end in punctuation (⑵ is "(2)"
// in NFKC, and cl100k joins punctuation to the line end after it), Σ, and lines that start without a space
// (prefix_space).
TEST(WordCounterWholeTextTest, NormalizedCountsArePiecesOfTheNormalizedWhole) {
  std::string text = MixedText(/*utf8=*/false);
  for (int i = 0; i < 300; ++i) {
    text += fmt::format("ΣΟΦΙΑ{} \u0301x ⑴ ﬁne Ａｂ{}⑵\ne\u0301 A\u030A{}\tＸ\n", i, i % 10, i % 7 == 0 ? "\r" : "");
  }
  for (const char* preset : {"gpt2", "cl100k"}) {
    auto split = MakeSplitPreTokenizer(preset);
    ASSERT_TRUE(split.ok()) << split.status();
    for (const char* name : {"nfc", "nfkc", "nfkc+lowercase", "lowercase", "prefix_space", "nfkc+prefix_space"}) {
      auto normalizer = MakeNormalizer(name);
      ASSERT_TRUE(normalizer.ok()) << normalizer.status();
      WordCounterOptions options;
      options.pre_tokenizer = split->get();
      options.normalizer = normalizer->get();
      ExpectEveryWayCounts(text, WholeOracle(text, **split, normalizer->get()), options,
                           fmt::format("{} {}", preset, name));
    }
  }
}

// A text without any cut point is one chunk that grows as it is read; it is searched for a cut only where it grew,
// so reading it in 64-byte steps takes linear time (0.06 s here; searching it whole after each step took 43 s).
TEST(WordCounterWholeTextTest, TextWithoutCutPointsIsReadInLinearTime) {
  std::string text;
  while (text.size() < (size_t{2} << 20)) text += "(+)\t-> ";  // white space, never after a letter or digit
  auto split = MakeSplitPreTokenizer("gpt2");
  ASSERT_TRUE(split.ok()) << split.status();
  WordCounterOptions options;
  options.pre_tokenizer = split->get();
  options.chunk_bytes = 64;
  const std::string path = TempFile("tokvec_no_cut_test.txt", text);
  const auto start = std::chrono::steady_clock::now();
  auto words = CountWords({path}, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(words.ok()) << words.status();
  EXPECT_TRUE(AsMap(*words) == WholeOracle(text, **split));
  EXPECT_LT(seconds, 5.0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tokvec
