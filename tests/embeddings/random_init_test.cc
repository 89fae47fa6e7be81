#include "embeddings/random_init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tokvec {
namespace {

// The engine is the standard's: its 10000th output for the default seed is fixed by [rand.predef].
TEST(NormalSamplerTest, EngineIsTheStandardMt19937_64) {
  std::mt19937_64 engine;
  engine.discard(9999);
  EXPECT_EQ(engine(), 9981545732273789042ULL);
}

TEST(NormalSamplerTest, SameSeedSameSamplesDifferentSeedDifferent) {
  NormalSampler a(42), b(42), c(43);
  const Matrix ma = a.Matrix(8, 8, 0.02f), mb = b.Matrix(8, 8, 0.02f), mc = c.Matrix(8, 8, 0.02f);
  EXPECT_EQ(ma.storage(), mb.storage());
  EXPECT_NE(ma.storage(), mc.storage());
}

// Box–Muller from two uniforms of the engine: z0 = sqrt(-2 ln u1) cos(2 pi u2), then z1 with sin.
TEST(NormalSamplerTest, FirstPairIsBoxMullerOfTheFirstTwoEngineOutputs) {
  std::mt19937_64 engine(7);
  const double u1 = static_cast<double>((engine() >> 11) + 1) / 9007199254740992.0;
  const double u2 = static_cast<double>(engine() >> 11) / 9007199254740992.0;
  NormalSampler sampler(7);
  const double r = std::sqrt(-2.0 * std::log(u1));
  EXPECT_DOUBLE_EQ(sampler.Next(), r * std::cos(2.0 * M_PI * u2));
  EXPECT_DOUBLE_EQ(sampler.Next(), r * std::sin(2.0 * M_PI * u2));
}

TEST(NormalSamplerTest, MomentsMatchTheRequestedNormal) {
  NormalSampler sampler(1);
  const Matrix m = sampler.Matrix(400, 500, 0.02f);  // 200k samples
  double sum = 0.0, sq = 0.0, fourth = 0.0;
  for (float v : m.storage()) {
    sum += v;
    sq += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(m.size());
  const double mean = sum / n, stddev = std::sqrt(sq / n - mean * mean);
  for (float v : m.storage()) fourth += std::pow((v - mean) / stddev, 4.0);
  EXPECT_NEAR(mean, 0.0, 0.02 * 5 / std::sqrt(n));  // 5 standard errors
  EXPECT_NEAR(stddev, 0.02, 0.02 * 0.01);
  EXPECT_NEAR(fourth / n, 3.0, 0.05);  // kurtosis of a normal
}

}  // namespace
}  // namespace tokvec
