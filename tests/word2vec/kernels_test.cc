// The dispatched vector kernels against naive double-precision loops, for every length around the vector widths.
#include "word2vec/kernels.h"

#include <random>

#include "gtest/gtest.h"

namespace tokvec::word2vec {
namespace {

TEST(KernelsTest, MatchNaiveLoops) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  for (const Kernels* k : {&PortableKernels(), &BestKernels()}) {
    for (int64_t n : {1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 100, 300}) {
      std::vector<float> a(static_cast<size_t>(n)), b(a.size()), c(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        a[i] = normal(rng);
        b[i] = normal(rng);
        c[i] = normal(rng);
      }
      double dot = 0;
      for (size_t i = 0; i < a.size(); ++i) dot += static_cast<double>(a[i]) * b[i];
      EXPECT_NEAR(k->dot(a.data(), b.data(), n), dot, 1e-5 * n) << k->name << " n=" << n;

      std::vector<float> y = c;
      k->axpy(0.3f, a.data(), y.data(), n);
      for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(y[i], c[i] + 0.3 * a[i], 1e-5) << k->name << " n=" << n;

      std::vector<float> out = b, grad = c;
      k->update(-0.7f, out.data(), a.data(), grad.data(), n);
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(grad[i], c[i] - 0.7 * b[i], 1e-5) << k->name;   // uses out before the change
        EXPECT_NEAR(out[i], b[i] - 0.7 * a[i], 1e-5) << k->name;
      }
      // Nothing past n is touched.
      std::vector<float> guard(static_cast<size_t>(n) + 16, 9.0f);
      k->axpy(1.0f, a.data(), guard.data(), n);
      for (size_t i = static_cast<size_t>(n); i < guard.size(); ++i) EXPECT_EQ(guard[i], 9.0f);
    }
  }
}

}  // namespace
}  // namespace tokvec::word2vec
