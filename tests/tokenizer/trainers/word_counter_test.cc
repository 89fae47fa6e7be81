#include "tokenizer/trainers/word_counter.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

std::map<std::string, uint64_t> AsMap(const std::vector<WordCount>& words) {
  std::map<std::string, uint64_t> map;
  for (const WordCount& word : words) {
    EXPECT_TRUE(map.emplace(word.word, word.count).second) << "'" << word.word << "' listed twice";
  }
  return map;
}

WordCounterOptions WordOptions(const PreTokenizer* pre_tokenizer, size_t threads, size_t chunk_bytes) {
  WordCounterOptions options;
  options.pre_tokenizer = pre_tokenizer;
  options.require_utf8 = true;
  options.threads = threads;
  options.chunk_bytes = chunk_bytes;
  return options;
}

std::string TempFile(const std::string& name, const std::string& bytes) {
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(WordCounterTest, CountsWords) {
  WhitespacePreTokenizer pre_tokenizer;
  auto words = CountWordsInText("low low\nlower  low\n\nnewest", WordOptions(&pre_tokenizer, 1, 1 << 20));
  ASSERT_TRUE(words.ok()) << words.status();
  EXPECT_EQ(AsMap(*words), (std::map<std::string, uint64_t>{{"low", 3}, {"lower", 1}, {"newest", 1}}));
}

// The counts are the same for any thread count and chunk size (chunks always end at a newline).
TEST(WordCounterTest, SameCountsForAnyThreadsAndChunkSize) {
  std::mt19937 rng(7);
  const std::vector<std::string> vocabulary = {"a", "bb", "日本", "é", "low", "lower", "x\u00A0y"};
  std::string text;
  std::map<std::string, uint64_t> expected;
  for (int line = 0; line < 3000; ++line) {
    const int n = std::uniform_int_distribution<int>(0, 8)(rng);
    for (int i = 0; i < n; ++i) {
      const std::string& word = vocabulary[std::uniform_int_distribution<size_t>(0, vocabulary.size() - 1)(rng)];
      text += word + (i + 1 < n ? " " : "");
      if (word == "x\u00A0y") {
        ++expected["x"];
        ++expected["y"];
      } else {
        ++expected[word];
      }
    }
    text += line % 7 == 0 ? "\r\n" : "\n";
  }
  WhitespacePreTokenizer pre_tokenizer;
  for (size_t threads : {1, 2, 8}) {
    for (size_t chunk_bytes : {1, 100, 1 << 20}) {
      auto words = CountWordsInText(text, WordOptions(&pre_tokenizer, threads, chunk_bytes));
      ASSERT_TRUE(words.ok()) << words.status();
      EXPECT_EQ(AsMap(*words), expected) << threads << " threads, chunks of " << chunk_bytes;
    }
  }
  const std::string path = TempFile("tokvec_word_counter_test.txt", text);
  for (size_t threads : {1, 2}) {
    auto words = CountWords({path, path}, WordOptions(&pre_tokenizer, threads, 1000));
    ASSERT_TRUE(words.ok()) << words.status();
    std::map<std::string, uint64_t> doubled = expected;
    for (auto& [word, count] : doubled) count *= 2;
    EXPECT_EQ(AsMap(*words), doubled);
  }
  std::filesystem::remove(path);
}

// Shares of the files end to end (the byte ranges of `count --shard` and of MPI ranks, cut at cut points) count
// every piece exactly once: for 1..9 shares, with split-pattern pieces (which see the '\r' and '\n'), CRLF, multi-byte characters
// cut by raw byte ranges, a long line, files without a final newline, an empty file and fewer lines than shares.
TEST(WordCounterTest, SharesAddUpToTheWhole) {
  std::mt19937 rng(11);
  const std::vector<std::string> words = {"a", "bb", "日本語", "é", " low", "lower,", "\t"};
  std::vector<std::string> paths;
  for (int f = 0; f < 4; ++f) {
    std::string text;
    const int lines = f == 2 ? 0 : (f == 3 ? 2 : 400);  // an empty file, a two-line file
    for (int line = 0; line < lines; ++line) {
      const int n = line == 7 ? 2000 : std::uniform_int_distribution<int>(0, 9)(rng);
      for (int i = 0; i < n; ++i) text += words[std::uniform_int_distribution<size_t>(0, words.size() - 1)(rng)];
      if (f == 1 && line + 1 == lines) break;  // no final newline
      text += line % 5 == 0 ? "\r\n" : "\n";
    }
    paths.push_back(TempFile("tokvec_share_test_" + std::to_string(f) + ".txt", text));
  }
  auto pre_tokenizer = MakeSplitPreTokenizer("gpt2");
  ASSERT_TRUE(pre_tokenizer.ok());
  WordCounterOptions options;
  options.pre_tokenizer = pre_tokenizer->get();
  options.chunk_bytes = 97;
  auto whole = CountWords(paths, options);
  ASSERT_TRUE(whole.ok()) << whole.status();
  for (uint64_t shares = 1; shares <= 9; ++shares) {
    std::map<std::string, uint64_t> sum;
    for (uint64_t share = 0; share < shares; ++share) {
      options.threads = share % 2 + 1;
      auto part = CountWordsInShare(paths, share, shares, options);
      ASSERT_TRUE(part.ok()) << part.status();
      for (const WordCount& w : *part) sum[w.word] += w.count;
    }
    EXPECT_EQ(sum, AsMap(*whole)) << shares << " shares";
  }
  // Fewer lines than shares: most shares are empty, and the sum still holds.
  const std::vector<std::string> small = {paths[3]};
  auto whole_small = CountWords(small, options);
  std::map<std::string, uint64_t> sum;
  for (uint64_t share = 0; share < 7; ++share) {
    auto part = CountWordsInShare(small, share, 7, options);
    ASSERT_TRUE(part.ok());
    for (const WordCount& w : *part) sum[w.word] += w.count;
  }
  EXPECT_EQ(sum, AsMap(*whole_small));
  EXPECT_FALSE(CountWordsInShare(paths, 3, 3, options).ok());
  EXPECT_FALSE(CountWordsInShare({"-"}, 0, 2, options).ok());
  for (const std::string& path : paths) std::filesystem::remove(path);
}

// By default a text is pre-tokenized as a whole, as encode splits it: a line end joins the white space after it.
// With split_lines each line (with its '\n') is pre-tokenized on its own, as Hugging Face's trainer feeds lines.
TEST(WordCounterTest, SplitPatternPiecesOfTheWholeTextOrPerLine) {
  auto split = MakeSplitPreTokenizer("gpt2");
  ASSERT_TRUE(split.ok()) << split.status();
  WordCounterOptions options;
  options.pre_tokenizer = split->get();
  auto words = CountWordsInText("foo\n  bar\n", options);
  ASSERT_TRUE(words.ok()) << words.status();
  EXPECT_EQ(AsMap(*words), (std::map<std::string, uint64_t>{{"foo", 1}, {"\n ", 1}, {" bar", 1}, {"\n", 1}}));
  options.split_lines = true;
  words = CountWordsInText("foo\n  bar\n", options);
  ASSERT_TRUE(words.ok()) << words.status();
  EXPECT_EQ(AsMap(*words), (std::map<std::string, uint64_t>{{"foo", 1}, {"\n", 2}, {" ", 1}, {" bar", 1}}));
}

// mark_line_ends counts a line's last piece with a '\n' after it (an empty line has none), for any threads and
// chunk size.
TEST(WordCounterTest, MarkLineEndsCountsEachLinesLastPieceApart) {
  WhitespacePreTokenizer pre_tokenizer;
  for (size_t threads : {1, 2}) {
    for (size_t chunk : {size_t{3}, size_t{1} << 20}) {
      WordCounterOptions options = WordOptions(&pre_tokenizer, threads, chunk);
      options.split_lines = true;
      options.mark_line_ends = true;
      auto words = CountWordsInText("low low\nlower  low\n\nnewest", options);
      ASSERT_TRUE(words.ok()) << words.status();
      EXPECT_EQ(AsMap(*words), (std::map<std::string, uint64_t>{
                                   {"low", 1}, {"low\n", 2}, {"lower", 1}, {"newest\n", 1}}))
          << threads << " threads, chunks of " << chunk;
    }
  }
}

TEST(WordCounterTest, InvalidUtf8NamesFileAndOffset) {
  const std::string path = TempFile("tokvec_word_counter_bad.txt", std::string(5000, 'a') + "\nok caf\xE9\n");
  WhitespacePreTokenizer pre_tokenizer;
  for (size_t threads : {1, 2}) {
    auto words = CountWords({path}, WordOptions(&pre_tokenizer, threads, 64));
    EXPECT_EQ(words.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(words.status().message()),
                HasSubstr(path + ": invalid UTF-8 at byte offset 5007 (byte 0xE9)"));
  }
  std::filesystem::remove(path);
}

TEST(WordCounterTest, MissingFileIsNotFound) {
  WhitespacePreTokenizer pre_tokenizer;
  auto words = CountWords({"/nonexistent/corpus.txt"}, WordOptions(&pre_tokenizer, 2, 64));
  EXPECT_EQ(words.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(words.status().message()), HasSubstr("/nonexistent/corpus.txt"));
}

}  // namespace
}  // namespace tokvec
