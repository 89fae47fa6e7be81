// A BPE training spread over processes (BpeTrainerOptions::exchange) learns the merges of one process holding
// every word. The processes are threads here, joined by an in-memory exchange, so these tests also run in the
// sanitizer builds, which have no MPI (scripts/mpi_check.sh checks the MPI exchange end to end).
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tokenizer/trainers/bpe_trainer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

// What the threads of one spread training share: a slot per process and a barrier.
class Board {
 public:
  explicit Board(int size) : size_(size), slots_(static_cast<size_t>(size)), symbols_(static_cast<size_t>(size)) {}

  // Every thread waits until all have arrived.
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      arrived_cv_.notify_all();
      return;
    }
    arrived_cv_.wait(lock, [&] { return generation_ != generation; });
  }

  int size_;
  std::vector<std::string> slots_;
  std::vector<std::vector<std::string>> symbols_;
  MergeStep step_;

 private:
  std::mutex mutex_;
  std::condition_variable arrived_cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

// One process's view of the board: each call is a collective of all the board's threads.
class ThreadExchange final : public MergeExchange {
 public:
  ThreadExchange(Board* board, int rank) : board_(board), rank_(rank) {}

  bool IsRoot() const override { return rank_ == 0; }

  bool AllOk(bool ok) override {
    board_->slots_[rank_] = ok ? "1" : "0";
    board_->Wait();
    const bool all = std::all_of(board_->slots_.begin(), board_->slots_.end(),
                                 [](const std::string& slot) { return slot == "1"; });
    board_->Wait();
    return all;
  }

  absl::StatusOr<std::vector<std::string>> UnionOfSymbols(const std::vector<std::string>& symbols) override {
    board_->symbols_[rank_] = symbols;
    board_->Wait();
    std::vector<std::string> all;
    for (const std::vector<std::string>& part : board_->symbols_) all.insert(all.end(), part.begin(), part.end());
    board_->Wait();
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
  }

  absl::StatusOr<std::vector<std::string>> GatherOnRoot(const std::string& mine) override {
    board_->slots_[rank_] = mine;
    board_->Wait();
    std::vector<std::string> all;
    if (IsRoot()) all = board_->slots_;
    board_->Wait();
    return all;
  }

  absl::StatusOr<MergeStep> BroadcastStep(MergeStep step) override {
    if (IsRoot()) board_->step_ = step;
    board_->Wait();
    const MergeStep out = board_->step_;
    board_->Wait();
    ++steps_;
    return out;
  }

  int steps() const { return steps_; }

 private:
  Board* board_;
  int rank_;
  int steps_ = 0;
};

struct SpreadResult {
  std::vector<absl::StatusOr<TrainedBpe>> results;  // per process; [0] is the root's
  std::vector<int> steps;                           // exchange steps per process
};

// Trains on `words` cut into `processes` shares (word i to process i % processes) on one thread each.
SpreadResult TrainSpread(const std::vector<WordCount>& words, BpeTrainerOptions options, int processes) {
  std::vector<std::vector<WordCount>> shares(static_cast<size_t>(processes));
  for (size_t i = 0; i < words.size(); ++i) shares[i % processes].push_back(words[i]);
  Board board(processes);
  std::vector<ThreadExchange> exchanges;
  for (int r = 0; r < processes; ++r) exchanges.emplace_back(&board, r);
  SpreadResult out;
  out.results.assign(static_cast<size_t>(processes), absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int r = 0; r < processes; ++r) {
    threads.emplace_back([&, r] {
      BpeTrainerOptions mine = options;
      mine.exchange = &exchanges[r];
      out.results[r] = TrainBpe(shares[r], mine);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const ThreadExchange& exchange : exchanges) out.steps.push_back(exchange.steps());
  return out;
}

// Zipf-distributed words over a small alphabet with non-ASCII letters: many merges, steps heavy then light.
std::vector<WordCount> ZipfWords(size_t unique, uint32_t seed) {
  const std::vector<std::string> letters = {"a", "b", "c", "d", "e", "é", "ö", "ж", "語", "<", "/", "w", ">"};
  std::mt19937 rng(seed);
  std::vector<WordCount> words;
  std::set<std::string> seen;
  while (words.size() < unique) {
    std::string word;
    const size_t length = 1 + rng() % 9;
    for (size_t i = 0; i < length; ++i) word += letters[rng() % (rng() % 2 ? 5 : letters.size())];
    if (!seen.insert(word).second) continue;
    words.push_back({word, 1 + 200000 / (words.size() + 1)});
  }
  return words;
}

void ExpectSameModel(const TrainedBpe& spread, const TrainedBpe& one) {
  EXPECT_EQ(spread.tokens, one.tokens);
  ASSERT_EQ(spread.merges.size(), one.merges.size());
  for (size_t i = 0; i < one.merges.size(); ++i) {
    ASSERT_EQ(spread.merges[i].left, one.merges[i].left) << "merge " << i;
    ASSERT_EQ(spread.merges[i].right, one.merges[i].right) << "merge " << i;
  }
  EXPECT_EQ(spread.note, one.note);
  EXPECT_EQ(spread.unk_id, one.unk_id);
  EXPECT_EQ(spread.end_of_word_id, one.end_of_word_id);
}

struct Case {
  const char* name;
  ModelType type;
  std::optional<size_t> merges;
  std::optional<size_t> vocab_size;
  uint64_t min_frequency;
};

TEST(BpeTrainerSpreadTest, SameModelAsOneProcess) {
  const std::vector<WordCount> words = ZipfWords(6000, 7);
  const Case cases[] = {
      {"word, 200 merges (all together)", ModelType::kWord, 200, std::nullopt, 0},
      {"byte, 200 merges (all together)", ModelType::kByte, 200, std::nullopt, 0},
      {"word, 3000 merges (hand-over)", ModelType::kWord, 3000, std::nullopt, 0},
      {"byte, vocab 3000 (hand-over)", ModelType::kByte, std::nullopt, 3000, 0},
      {"word, min frequency 500", ModelType::kWord, 100000, std::nullopt, 500},
      {"byte, until no pair is left", ModelType::kByte, 1000000, std::nullopt, 0},
  };
  for (const Case& c : cases) {
    BpeTrainerOptions options;
    options.type = c.type;
    options.merges = c.merges;
    options.vocab_size = c.vocab_size;
    options.min_frequency = c.min_frequency;
    options.special_tokens = {"<|endoftext|>"};
    absl::StatusOr<TrainedBpe> one = TrainBpe(words, options);
    ASSERT_TRUE(one.ok()) << c.name << ": " << one.status();
    for (int processes : {2, 3}) {
      SCOPED_TRACE(std::string(c.name) + ", " + std::to_string(processes) + " processes");
      SpreadResult spread = TrainSpread(words, options, processes);
      for (const absl::StatusOr<TrainedBpe>& result : spread.results) ASSERT_TRUE(result.ok()) << result.status();
      ExpectSameModel(*spread.results[0], *one);
      // Every process took the same steps (a collective missed would hang, or differ here).
      EXPECT_EQ(std::count(spread.steps.begin(), spread.steps.end(), spread.steps[0]), processes);
    }
  }
}

TEST(BpeTrainerSpreadTest, HandsOverOnlyWhenManyLightStepsAreLeft) {
  const std::vector<WordCount> words = ZipfWords(6000, 11);
  BpeTrainerOptions options;
  options.type = ModelType::kByte;
  options.merges = 200;  // fewer than the hand-over's minimum left: every merge together, one step each + the stop
  SpreadResult few = TrainSpread(words, options, 2);
  ASSERT_TRUE(few.results[0].ok()) << few.results[0].status();
  EXPECT_EQ(few.steps[0], 201);
  // The non-root's result then holds every merge too.
  ASSERT_TRUE(few.results[1].ok()) << few.results[1].status();
  EXPECT_EQ(few.results[1]->merges.size(), 200u);
  options.merges = 3000;  // light steps long before the end: the root finishes alone
  SpreadResult many = TrainSpread(words, options, 2);
  ASSERT_TRUE(many.results[0].ok()) << many.results[0].status();
  EXPECT_EQ(many.results[0]->merges.size(), 3000u);
  EXPECT_LT(many.steps[0], 3000);
}

TEST(BpeTrainerSpreadTest, AnErrorOnOneProcessStopsEveryProcess) {
  std::vector<WordCount> words = ZipfWords(600, 3);
  words.push_back({"bad\xFFutf8", 5});  // on process (600 % 2) = 0 of 2; word models need UTF-8
  words.push_back({"fine", 5});         // on process 1, which must stop too, not wait
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 50;
  SpreadResult spread = TrainSpread(words, options, 2);
  ASSERT_FALSE(spread.results[0].ok());
  EXPECT_THAT(spread.results[0].status().message(), HasSubstr("invalid UTF-8"));
  ASSERT_FALSE(spread.results[1].ok());
  EXPECT_THAT(spread.results[1].status().message(), HasSubstr("another process"));
}

}  // namespace
}  // namespace tokvec
