// GeluTanhAvx512 (float, x / (1 + exp(-2u))) and GeluErfAvx512 (float erfc) against the GELUs' definitions in double
// (std::tanh, std::erf),
// over a dense grid and extreme inputs; every length's partial last vector leaves the floats after it untouched
// and gives the bits of the full-length call.
#include "kernels/gelu_avx512.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "kernels/cpu_features.h"

namespace tokvec {
namespace {

double GeluTanhDefinition(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}

// Each of `x` and the extremes through `gelu`, within 1e-6 (relative above |x| = 1) of the double definition.
void ExpectWithinOneEMinus6(bool (*gelu)(std::span<float>), double (*definition)(double),
                            std::initializer_list<float> extremes) {
  std::vector<float> x;
  for (int i = -24000; i <= 24000; ++i) x.push_back(static_cast<float>(i) * 5e-4f);  // [-12, 12]
  x.insert(x.end(), extremes);
  std::vector<float> y = x;
  ASSERT_TRUE(gelu(y));
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = definition(x[i]);
    const double error = std::abs(y[i] - expected) / std::max(1.0, std::abs(static_cast<double>(x[i])));
    worst = std::max(worst, error);
    ASSERT_LE(error, 1e-6) << "x = " << x[i] << ": " << y[i] << " vs " << expected;
  }
  ::testing::Test::RecordProperty("worst_relative_error", std::to_string(worst));
}

// Calls on the first n of 40 values (n = 0..33) give the full call's values there and leave the rest alone.
void ExpectPartialVectorsMatchTheFullCall(bool (*gelu)(std::span<float>)) {
  std::vector<float> full(40);
  for (size_t i = 0; i < full.size(); ++i) full[i] = static_cast<float>(i) * 0.37f - 7.0f;
  std::vector<float> expected = full;
  ASSERT_TRUE(gelu(expected));
  for (size_t n = 0; n <= 33; ++n) {
    std::vector<float> y = full;
    ASSERT_TRUE(gelu(std::span<float>(y.data(), n)));
    for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], i < n ? expected[i] : full[i]) << "n " << n << " i " << i;
  }
}

double GeluErfDefinition(double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); }

TEST(GeluTanhAvx512Test, WithinOneEMinus6OfTheDoubleDefinition) {
  if (!Avx512Available()) GTEST_SKIP() << "the CPU has no AVX-512F";
  ExpectWithinOneEMinus6(GeluTanhAvx512, GeluTanhDefinition,
                         {1e-30f, -1e-30f, 0.0f, -0.0f, 30.0f, -30.0f, 1e4f, -1e4f, 3e38f});
}

TEST(GeluTanhAvx512Test, PartialVectorsMatchTheFullCallAndStopAtTheEnd) {
  if (!Avx512Available()) GTEST_SKIP() << "the CPU has no AVX-512F";
  ExpectPartialVectorsMatchTheFullCall(GeluTanhAvx512);
}

TEST(GeluErfAvx512Test, WithinOneEMinus6OfTheDoubleDefinition) {
  if (!Avx512Available()) GTEST_SKIP() << "the CPU has no AVX-512F";
  ExpectWithinOneEMinus6(GeluErfAvx512, GeluErfDefinition,
                         {1e-30f, -1e-30f, 0.0f, -0.0f, 30.0f, -30.0f, 1e4f, -1e4f, 3e38f, -3e38f});
}

TEST(GeluErfAvx512Test, PartialVectorsMatchTheFullCallAndStopAtTheEnd) {
  if (!Avx512Available()) GTEST_SKIP() << "the CPU has no AVX-512F";
  ExpectPartialVectorsMatchTheFullCall(GeluErfAvx512);
}

}  // namespace
}  // namespace tokvec
