// Word splitting and vocabulary order as word2vec.c's ReadWord / SortVocab define them, checked by hand.
#include "word2vec/vocabulary.h"

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace tokvec::word2vec {
namespace {

namespace fs = std::filesystem;

std::string Write(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(VocabularyTest, SplitsLikeWord2VecAndSortsByCount) {
  // '\r' is dropped (also inside a word), tabs and spaces separate, each '\n' is "</s>".
  const std::string path = Write("v1.txt", "b a\tb\r\nc b a\n\n  a\rx b\n");
  auto corpus = ReadWordCorpus({path}, {.min_count = 1});
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  EXPECT_EQ(corpus->vocab.words, (std::vector<std::string>{"</s>", "b", "a", "ax", "c"}));
  EXPECT_EQ(corpus->vocab.counts, (std::vector<int64_t>{4, 4, 2, 1, 1}));
  EXPECT_EQ(corpus->ids, (std::vector<int32_t>{1, 2, 1, 0, 4, 1, 2, 0, 0, 3, 1, 0}));
  EXPECT_EQ(corpus->vocab.total(), 12);
}

TEST(VocabularyTest, MinCountAndMaxVocabDropWordsFromTheIds) {
  const std::string path = Write("v2.txt", "a a a b b c\nd");
  auto corpus = ReadWordCorpus({path}, {.min_count = 2});
  ASSERT_TRUE(corpus.ok());
  EXPECT_EQ(corpus->vocab.words, (std::vector<std::string>{"</s>", "a", "b"}));
  EXPECT_EQ(corpus->ids, (std::vector<int32_t>{1, 1, 1, 2, 2, 0}));
  auto capped = ReadWordCorpus({path, path}, {.min_count = 1, .max_vocab = 1});
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->vocab.words, (std::vector<std::string>{"</s>", "a"}));
  // Two files: "d" and the next file's "a" are separate words.
  EXPECT_EQ(capped->ids, (std::vector<int32_t>{1, 1, 1, 0, 1, 1, 1, 0}));
}

TEST(VocabularyTest, MissingFileIsAnError) {
  auto corpus = ReadWordCorpus({"/nonexistent/w2v.txt"}, {});
  EXPECT_FALSE(corpus.ok());
}

}  // namespace
}  // namespace tokvec::word2vec
