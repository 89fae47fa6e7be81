// Training: every architecture and loss learns (words of a group end up nearest each other, far above the same
// vectors shuffled between words), --deterministic gives the same bytes for any thread count, and Hogwild with
// one thread is reproducible.
#include "word2vec/trainer.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "gtest/gtest.h"
#include "tests/word2vec/word2vec_testutil.h"
#include "word2vec/evaluate.h"
#include "word2vec/vectors.h"

namespace tokvec::word2vec {
namespace {

namespace fs = std::filesystem;

Corpus GroupCorpus(int lines) {
  // One file per process: ctest runs these tests in parallel processes, and rewriting a file another process has
  // mapped ended that one with SIGBUS.
  const fs::path path = fs::path(::testing::TempDir()) / ("w2v_groups_" + std::to_string(getpid()) + "_" +
                                                          std::to_string(lines) + ".txt");
  std::ofstream(path) << testing::GroupedCorpus(4, 12, lines, 11);
  auto corpus = ReadWordCorpus({path.string()}, {.min_count = 1});
  EXPECT_TRUE(corpus.ok()) << corpus.status();
  std::error_code ignored;
  fs::remove(path, ignored);
  return *std::move(corpus);
}

// The share of group words whose nearest neighbour (cosine) is a word of the same group.
double NeighbourAccuracy(const Vectors& vectors) {
  UnitVectors unit(vectors);
  int right = 0, total = 0;
  for (int64_t r = 0; r < unit.size(); ++r) {
    const int group = testing::GroupOf(unit.word(r));
    if (group < 0) continue;
    // Nearest among group words only (the function words sit at fixed slots too).
    int64_t best = -1;
    float best_cos = -2;
    for (int64_t c = 0; c < unit.size(); ++c) {
      if (c == r || testing::GroupOf(unit.word(c)) < 0) continue;
      float dot = 0;
      for (int64_t d = 0; d < unit.dim(); ++d) dot += unit.row(r)[d] * unit.row(c)[d];
      if (dot > best_cos) {
        best_cos = dot;
        best = c;
      }
    }
    right += testing::GroupOf(unit.word(best)) == group;
    ++total;
  }
  return static_cast<double>(right) / total;
}

Vectors ToVectors(const Corpus& corpus, std::vector<float> values, int64_t dim) {
  return Vectors{corpus.vocab.words, dim, std::move(values)};
}

struct Setting {
  Arch arch;
  Loss loss;
};

class LearnsTest : public ::testing::TestWithParam<Setting> {};

TEST_P(LearnsTest, GroupsAreNeighboursFarAboveAShuffledBaseline) {
  const Corpus corpus = GroupCorpus(3000);
  TrainOptions options{.arch = GetParam().arch, .loss = GetParam().loss, .dim = 24, .window = 3, .sample = 0,
                       .epochs = 3, .threads = 2};
  auto trained = Train(corpus, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  Vectors vectors = ToVectors(corpus, *trained, 24);
  const double accuracy = NeighbourAccuracy(vectors);
  // Baseline: the same rows given to other words at random.
  Vectors shuffled = vectors;
  std::vector<size_t> order(vectors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(1));
  for (size_t i = 0; i < order.size(); ++i) {
    std::memcpy(shuffled.row(i), vectors.row(order[i]), 24 * sizeof(float));
  }
  const double baseline = NeighbourAccuracy(shuffled);
  EXPECT_GE(accuracy, 0.9) << "baseline " << baseline;
  EXPECT_GT(accuracy, baseline + 0.4);
}

INSTANTIATE_TEST_SUITE_P(All, LearnsTest,
                         ::testing::Values(Setting{Arch::kSkipGram, Loss::kNegative},
                                           Setting{Arch::kSkipGram, Loss::kHierarchical},
                                           Setting{Arch::kCbow, Loss::kNegative},
                                           Setting{Arch::kCbow, Loss::kHierarchical}),
                         [](const auto& info) {
                           return std::string(info.param.arch == Arch::kCbow ? "Cbow" : "SkipGram") +
                                  (info.param.loss == Loss::kNegative ? "Ns" : "Hs");
                         });

TEST(TrainerTest, DeterministicIsTheSameForAnyThreadCount) {
  const Corpus corpus = GroupCorpus(6000);  // ~48k words: several blocks, two rounds
  for (Setting s : {Setting{Arch::kSkipGram, Loss::kNegative}, Setting{Arch::kCbow, Loss::kHierarchical}}) {
    std::vector<float> first;
    for (int threads : {1, 2, 8}) {
      TrainOptions options{.arch = s.arch, .loss = s.loss, .dim = 16, .window = 3, .sample = 0, .epochs = 2,
                           .threads = threads, .deterministic = true, .seed = 9};
      auto trained = Train(corpus, options);
      ASSERT_TRUE(trained.ok()) << trained.status();
      if (first.empty()) {
        first = *trained;
        EXPECT_GT(NeighbourAccuracy(ToVectors(corpus, first, 16)), 0.9);
      } else {
        ASSERT_EQ(trained->size(), first.size());
        EXPECT_EQ(std::memcmp(trained->data(), first.data(), first.size() * sizeof(float)), 0)
            << "threads " << threads;
      }
    }
  }
}

TEST(TrainerTest, OneHogwildThreadIsReproducibleAndSeedsDiffer) {
  const Corpus corpus = GroupCorpus(500);
  TrainOptions options{.dim = 8, .epochs = 1};
  auto a = Train(corpus, options), b = Train(corpus, options);
  options.seed = 2;
  auto c = Train(corpus, options);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
}

TEST(TrainerTest, RefusesAnEmptyVocabulary) {
  const fs::path path = fs::path(::testing::TempDir()) / "w2v_tiny.txt";
  std::ofstream(path) << "a b c\n";
  auto corpus = ReadWordCorpus({path.string()}, {.min_count = 5});
  ASSERT_TRUE(corpus.ok());
  auto trained = Train(*corpus, {});
  ASSERT_FALSE(trained.ok());
  EXPECT_NE(trained.status().message().find("--min-count"), std::string::npos);
}

}  // namespace
}  // namespace tokvec::word2vec
