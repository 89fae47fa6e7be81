// Exact top-k against a brute force written here (double scores, a full sort by score then index), with ties,
// several thread counts, a memory-mapped .npy, and the binary path's Hamming ranking.
#include "retrieval/vector_search.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <vector>

#include "base/npz.h"
#include "gtest/gtest.h"
#include "retrieval/quantize.h"

namespace tokvec {
namespace {

std::vector<int64_t> BruteForce(const std::vector<float>& q, const std::vector<float>& x, int64_t d, int64_t k,
                                bool cosine) {
  const int64_t n = static_cast<int64_t>(x.size()) / d;
  std::vector<double> score(static_cast<size_t>(n));
  auto norm = [&](const float* v) {
    double s = 0;
    for (int64_t j = 0; j < d; ++j) s += static_cast<double>(v[j]) * v[j];
    return std::sqrt(s);
  };
  for (int64_t i = 0; i < n; ++i) {
    double dot = 0;
    for (int64_t j = 0; j < d; ++j) dot += static_cast<double>(q[j]) * x[i * d + j];
    score[i] = cosine ? dot / norm(q.data()) / norm(&x[i * d]) : dot;
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score[a] > score[b]; });
  order.resize(static_cast<size_t>(std::min(k, n)));
  return order;
}

TEST(VectorSearchTest, FloatSearchEqualsBruteForceForAnyThreadCount) {
  const int64_t n = 5000, d = 24, k = 6;  // 5000 rows: several 1024-row blocks and a short last one
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  std::vector<float> x(static_cast<size_t>(n * d)), q(static_cast<size_t>(4 * d));
  for (float& v : x) v = normal(rng);
  for (float& v : q) v = normal(rng);
  std::copy_n(&x[10 * d], d, &x[4000 * d]);  // rows 10 and 4000 tie (different blocks)
  std::copy_n(&x[10 * d], d, q.data());
  const VectorIndex index = VectorIndex::FromMemory(NpyDtype::kFloat32, n, d, x.data());
  for (Metric metric : {Metric::kCosine, Metric::kDot}) {
    for (int threads : {1, 2, 3}) {
      auto hits = Search({q.data(), 4, d}, index, {.k = k, .metric = metric, .threads = threads});
      ASSERT_TRUE(hits.ok()) << hits.status();
      ASSERT_EQ(hits->size(), 4u);
      for (int64_t r = 0; r < 4; ++r) {
        const std::vector<float> query(q.begin() + r * d, q.begin() + (r + 1) * d);
        const std::vector<int64_t> want = BruteForce(query, x, d, k, metric == Metric::kCosine);
        std::vector<int64_t> got;
        for (const SearchHit& hit : (*hits)[r]) got.push_back(hit.index);
        EXPECT_EQ(got, want) << "query " << r << " threads " << threads;
      }
      EXPECT_EQ((*hits)[0][0].index, 10);
      EXPECT_EQ((*hits)[0][1].index, 4000);
      EXPECT_EQ((*hits)[0][0].score, (*hits)[0][1].score);
    }
  }
}

TEST(VectorSearchTest, BinaryRanksByHammingDistance) {
  const int64_t n = 3000, d = 72;  // 9 bytes: the any-width loop
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  std::vector<float> x(static_cast<size_t>(n * d)), q(static_cast<size_t>(d));
  for (float& v : x) v = normal(rng);
  for (float& v : q) v = normal(rng);
  auto bits = Quantize({x.data(), n, d}, Precision::kUbinary, nullptr);
  ASSERT_TRUE(bits.ok());
  const VectorIndex index = VectorIndex::FromMemory(NpyDtype::kUint8, n, bits->cols, bits->bytes.data());
  auto hits = Search({q.data(), 1, d}, index, {.k = 20, .threads = 2, .rescore_multiplier = 0});
  ASSERT_TRUE(hits.ok()) << hits.status();
  std::vector<int> agree(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < d; ++j) agree[i] += (x[i * d + j] > 0) == (q[j] > 0);
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return agree[a] > agree[b]; });
  for (int r = 0; r < 20; ++r) {
    EXPECT_EQ((*hits)[0][r].index, order[r]) << r;
    EXPECT_EQ((*hits)[0][r].score, agree[order[r]]);
  }
}

TEST(VectorSearchTest, OpensAMappedNpyAndRefusesOtherWidths) {
  const std::vector<float> x = {1, 0, 0, 1, 1, 1};
  const auto path = std::filesystem::path(::testing::TempDir()) / "vector_search_test.npy";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string npy = NpyArray("<f4", {3, 2}, AsBytes(x));
    out.write(npy.data(), static_cast<std::streamsize>(npy.size()));
  }
  auto index = VectorIndex::Open(path.string());
  ASSERT_TRUE(index.ok()) << index.status();
  const std::vector<float> q = {0, 2};
  auto hits = Search({q.data(), 1, 2}, *index, {.k = 5});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ((*hits)[0].size(), 3u);  // fewer rows than k
  EXPECT_EQ((*hits)[0][0].index, 1);
  EXPECT_EQ((*hits)[0][1].index, 2);
  auto all = Search({q.data(), 1, 2}, *index, {.k = int64_t{1} << 40});  // a huge k: every row, nothing huge kept
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)[0].size(), 3u);
  EXPECT_FALSE(Search({q.data(), 1, 1}, *index, {}).ok());
  EXPECT_FALSE(Search({q.data(), 1, 2}, *index, {.k = 0}).ok());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tokvec
