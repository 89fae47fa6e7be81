// SelectBlasKernels (kernels/blas_kernels.h): on a CPU with AVX2 + FMA, OpenBLAS never stays on its SSE3 fallback
// (Prescott) unless the user asked for it with OPENBLAS_CORETYPE; the choice is made once and is what OpenBLAS
// then reports; and sgemm gives the same numbers (to float rounding) on the chosen kernels as on the fallback.
#include "kernels/blas_kernels.h"

#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/ops.h"

namespace tokvec {
namespace {

bool CpuRunsAvx2Fma() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

TEST(BlasKernelsTest, NeverStaysOnTheSse3FallbackUnlessAskedTo) {
  UseSingleThreadedBlas();
  const BlasKernelChoice& choice = SelectBlasKernels();
  if (choice.loaded.empty()) GTEST_SKIP() << "the BLAS is not OpenBLAS (no openblas_get_corename)";
  EXPECT_EQ(BlasCoreName(), choice.selected);
  EXPECT_EQ(&SelectBlasKernels(), &choice);  // once per process
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) {
    EXPECT_EQ(choice.selected, choice.loaded) << "OPENBLAS_CORETYPE is the user's choice";
  } else if (CpuRunsAvx2Fma()) {
    EXPECT_NE(choice.selected, "Prescott") << "OpenBLAS chose " << choice.loaded;
  } else {
    EXPECT_EQ(choice.selected, choice.loaded);
  }
  if (choice.loaded != "Prescott") EXPECT_EQ(choice.selected, choice.loaded) << "only the fallback is replaced";
}

// [64, 96] x [96, 80]: every element against a double-precision sum.
TEST(BlasKernelsTest, SgemmOnTheSelectedKernelsMatchesADoubleSum) {
  UseSingleThreadedBlas();
  constexpr int m = 64, k = 96, n = 80;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 37 % 101) - 50) / 64.0f;
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 53 % 89) - 44) / 32.0f;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
  for (int r = 0; r < m; ++r) {
    for (int col = 0; col < n; ++col) {
      double want = 0.0, magnitude = 0.0;
      for (int i = 0; i < k; ++i) {
        want += static_cast<double>(a[r * k + i]) * b[i * n + col];
        magnitude += std::abs(static_cast<double>(a[r * k + i]) * b[i * n + col]);
      }
      ASSERT_NEAR(c[r * n + col], want, 1e-6 * magnitude + 1e-6) << "row " << r << " col " << col;
    }
  }
}

}  // namespace
}  // namespace tokvec
