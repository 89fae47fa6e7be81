// The negative sampler against the exact unigram^0.75 distribution, and the Huffman codes against a naive
// priority-queue Huffman construction (same code lengths in total) and the prefix property.
#include "word2vec/sampling.h"

#include <cmath>
#include <queue>
#include <random>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace tokvec::word2vec {
namespace {

std::vector<int64_t> Counts(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> counts;
  for (int i = 0; i < n; ++i) counts.push_back(1 + static_cast<int64_t>(rng() % 100000) / (i + 1));
  std::sort(counts.begin() + 1, counts.end(), std::greater<>());
  return counts;
}

TEST(NegativeSamplerTest, ProbabilitiesAreUnigramToThePower075) {
  const std::vector<int64_t> counts = Counts(500, 1);
  NegativeSampler sampler(counts);
  double sum = 0;
  for (int64_t c : counts) sum += std::pow(static_cast<double>(c), 0.75);
  for (size_t w = 0; w < counts.size(); ++w) {
    const double exact = std::pow(static_cast<double>(counts[w]), 0.75) / sum;
    // Thresholds are 16-bit: each bin a word takes part in rounds by up to 2^-17 / V.
    EXPECT_NEAR(sampler.Probability(static_cast<int64_t>(w)), exact, 1e-4 * exact + 2.0 / 65536 / 500) << w;
  }
}

TEST(NegativeSamplerTest, DrawsFollowTheDistribution) {
  const std::vector<int64_t> counts = {50, 1000, 300, 20, 1};
  NegativeSampler sampler(counts);
  std::vector<int64_t> seen(counts.size());
  std::mt19937_64 rng(3);
  const int draws = 400000;
  for (int i = 0; i < draws; ++i) ++seen[static_cast<size_t>(sampler.Sample(rng() >> 16))];
  for (size_t w = 0; w < counts.size(); ++w) {
    const double p = sampler.Probability(static_cast<int64_t>(w));
    const double sd = std::sqrt(draws * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(seen[w]), draws * p, 5 * sd + 1) << w;
  }
}

// Total weighted path length of an optimal prefix code, by the textbook priority-queue construction.
int64_t NaiveHuffmanCost(const std::vector<int64_t>& counts) {
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> queue(counts.begin(), counts.end());
  int64_t cost = 0;
  while (queue.size() > 1) {
    const int64_t a = queue.top();
    queue.pop();
    const int64_t b = queue.top();
    queue.pop();
    cost += a + b;
    queue.push(a + b);
  }
  return cost;
}

TEST(HuffmanCodesTest, OptimalPrefixFreeCodes) {
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<int64_t> counts = Counts(300, seed);
    counts[0] = counts[1] + 5;  // "</s>" first, as in a vocabulary, here also the most frequent
    HuffmanCodes tree(counts);
    ASSERT_EQ(tree.offsets.size(), counts.size() + 1);
    int64_t cost = 0;
    std::set<std::string> codes;
    const int64_t v = static_cast<int64_t>(counts.size());
    for (size_t w = 0; w < counts.size(); ++w) {
      std::string code;
      for (int64_t d = tree.offsets[w]; d < tree.offsets[w + 1]; ++d) {
        code.push_back(static_cast<char>('0' + tree.codes[static_cast<size_t>(d)]));
        ASSERT_GE(tree.points[static_cast<size_t>(d)], 0);
        ASSERT_LT(tree.points[static_cast<size_t>(d)], v - 1);
      }
      ASSERT_FALSE(code.empty());
      EXPECT_EQ(tree.points[static_cast<size_t>(tree.offsets[w])], v - 2) << "every path starts at the root";
      cost += counts[w] * static_cast<int64_t>(code.size());
      codes.insert(code);
    }
    EXPECT_EQ(codes.size(), counts.size());
    for (const std::string& a : codes) {  // prefix-free
      auto next = codes.upper_bound(a);
      if (next != codes.end()) EXPECT_NE(next->rfind(a, 0), 0u) << a << " is a prefix of " << *next;
    }
    EXPECT_EQ(cost, NaiveHuffmanCost(counts));
  }
}

TEST(HuffmanCodesTest, TwoWords) {
  HuffmanCodes tree({3, 7});
  EXPECT_EQ(tree.offsets, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(tree.points, (std::vector<int32_t>{0, 0}));
  EXPECT_NE(tree.codes[0], tree.codes[1]);
}

}  // namespace
}  // namespace tokvec::word2vec
