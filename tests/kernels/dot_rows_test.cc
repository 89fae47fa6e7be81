// DotRows: every path gives the portable loop's bits, a pair's score does not depend on the other queries or rows
// scored with it, and the scores are dot products (against a double-precision sum).
#include "kernels/dot_rows.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

TEST(DotRowsTest, EveryPathGivesThePortableBitsForAnyShape) {
  for (int64_t d : {1, 5, 15, 16, 17, 31, 32, 48, 100, 384}) {
    for (int64_t nq : {1, 3, 4, 5, 9}) {
      const int64_t n = 13;
      const std::vector<float> q = Random(static_cast<size_t>(nq * d), 1);
      const std::vector<float> rows = Random(static_cast<size_t>(n * d), 2);
      std::vector<float> fast(static_cast<size_t>(nq * n)), portable(fast.size());
      DotRows(q.data(), nq, rows.data(), n, d, fast.data());
      DotRowsPortable(q.data(), nq, rows.data(), n, d, portable.data());
      ASSERT_EQ(std::memcmp(fast.data(), portable.data(), fast.size() * sizeof(float)), 0) << "d " << d << " nq " << nq;
      std::vector<float> avx2(fast.size());
      if (DotRowsAvx2Fma(q.data(), nq, rows.data(), n, d, avx2.data())) {
        ASSERT_EQ(std::memcmp(avx2.data(), portable.data(), avx2.size() * sizeof(float)), 0) << "AVX2, d " << d;
      }
      for (int64_t k = 0; k < nq; ++k) {
        for (int64_t i = 0; i < n; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < d; ++j) sum += static_cast<double>(q[k * d + j]) * rows[i * d + j];
          EXPECT_NEAR(fast[k * n + i], sum, 1e-5 * (1 + std::sqrt(static_cast<double>(d))));
          // The same pair alone: the same bits.
          float alone = 0;
          DotRows(&q[k * d], 1, &rows[i * d], 1, d, &alone);
          EXPECT_EQ(std::memcmp(&alone, &fast[k * n + i], sizeof(float)), 0) << "d " << d << " q " << k << ", " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tokvec
