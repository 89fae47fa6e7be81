// The trainer's worker threads (word counting and big merge steps) give exactly the one-thread result.
// Meaningful under ThreadSanitizer (scripts/sanitize.sh thread), where a data race fails the run.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {
namespace {

// Seeded text: common words and a pool of made-up ones, about `bytes` long, many lines.
std::string MakeText(size_t bytes) {
  const std::vector<std::string> words = {"the", "low", "lower", "newest", "widest", "caf\u00e9", "\u65e5\u672c",
                                          "token", "tokens", "tokenizer"};
  std::mt19937 rng(5);
  std::string text;
  while (text.size() < bytes) {
    if (rng() % 4 == 0) {
      text += "w" + std::to_string(rng() % 500);
    } else {
      text += words[rng() % words.size()];
    }
    text += (rng() % 9 == 0) ? '\n' : ' ';
  }
  return text;
}

TrainedBpe Train(ModelType type, const PreTokenizer& split, const std::string& text, size_t threads) {
  WordCounterOptions count{.pre_tokenizer = &split, .normalizer = nullptr, .require_utf8 = type == ModelType::kWord,
                           .threads = threads, .chunk_bytes = 4096, .progress = nullptr};
  absl::StatusOr<std::vector<WordCount>> words = CountWordsInText(text, count, "text");
  EXPECT_TRUE(words.ok()) << words.status();
  BpeTrainerOptions options;
  options.type = type;
  options.merges = 300;
  options.threads = threads;
  absl::StatusOr<TrainedBpe> trained = TrainBpe(*std::move(words), options);
  EXPECT_TRUE(trained.ok()) << trained.status();
  return *std::move(trained);
}

void ExpectSameMerges(const TrainedBpe& a, const TrainedBpe& b) {
  EXPECT_EQ(a.tokens, b.tokens);
  ASSERT_EQ(a.merges.size(), b.merges.size());
  for (size_t i = 0; i < a.merges.size(); ++i) {
    EXPECT_EQ(a.merges[i].left, b.merges[i].left) << "merge " << i;
    EXPECT_EQ(a.merges[i].right, b.merges[i].right) << "merge " << i;
  }
}

TEST(TrainerConcurrencyTest, WordTrainingWithThreadsMatchesOneThread) {
  const std::string text = MakeText(200000);
  WhitespacePreTokenizer split;
  const TrainedBpe one = Train(ModelType::kWord, split, text, 1);
  ExpectSameMerges(one, Train(ModelType::kWord, split, text, 4));
}

TEST(TrainerConcurrencyTest, ByteTrainingWithThreadsMatchesOneThread) {
  const std::string text = MakeText(200000);
  absl::StatusOr<std::unique_ptr<PreTokenizer>> split = MakeSplitPreTokenizer("gpt2");
  ASSERT_TRUE(split.ok()) << split.status();
  const TrainedBpe one = Train(ModelType::kByte, **split, text, 1);
  ExpectSameMerges(one, Train(ModelType::kByte, **split, text, 4));
}

}  // namespace
}  // namespace tokvec
