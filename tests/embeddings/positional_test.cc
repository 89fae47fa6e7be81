#include "embeddings/positional.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/golden.h"

namespace tokvec {
namespace {

TEST(SinusoidalTableTest, MatchesPyTorchTutorialFormula) {
  const Golden golden = Golden::Load("sinusoidal");
  for (auto [max_len, d_model] : {std::pair<int64_t, int64_t>{64, 16}, {10, 7}}) {
    absl::StatusOr<Matrix> pe = SinusoidalTable(max_len, d_model);
    ASSERT_TRUE(pe.ok()) << pe.status();
    const std::string key = "pe_" + std::to_string(max_len) + "_" + std::to_string(d_model);
    ExpectClose("sinusoidal table " + key, pe->view(), golden.View(key), 1e-5);
  }
}

TEST(SinusoidalTableTest, HandCheckedEntries) {
  absl::StatusOr<Matrix> pe = SinusoidalTable(3, 4);
  ASSERT_TRUE(pe.ok());
  EXPECT_EQ(pe->at(0, 0), 0.0f);                                   // sin(0)
  EXPECT_EQ(pe->at(0, 1), 1.0f);                                   // cos(0)
  EXPECT_FLOAT_EQ(pe->at(1, 0), std::sin(1.0f));                   // 10000^0 = 1
  EXPECT_FLOAT_EQ(pe->at(2, 3), static_cast<float>(std::cos(2.0 / 100.0)));  // 10000^(2/4) = 100
}

TEST(SinusoidalTableTest, RejectsBadSizes) {
  EXPECT_EQ(SinusoidalTable(4, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SinusoidalTable(-1, 8).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AddPositionsTest, AddsTheRowsStartingAtFirstPosition) {
  Matrix table(5, 2);  // [max_len=5, D=2]
  for (int64_t p = 0; p < 5; ++p) table.at(p, 0) = table.at(p, 1) = static_cast<float>(p);
  Matrix x(3, 2);
  x.at(0, 0) = 0.5f;
  ASSERT_TRUE(AddPositions(table.view(), 2, &x).ok());
  EXPECT_EQ(x.at(0, 0), 2.5f);
  EXPECT_EQ(x.at(1, 1), 3.0f);
  EXPECT_EQ(x.at(2, 0), 4.0f);
}

TEST(AddPositionsTest, PositionBeyondMaxLenIsOutOfRangeNamingIt) {
  Matrix table(4, 2);  // max_len 4
  Matrix x(5, 2);
  absl::Status status = AddPositions(table.view(), 0, &x);
  ASSERT_EQ(status.code(), absl::StatusCode::kOutOfRange);
  const std::string message(status.message());
  EXPECT_NE(message.find("position 4"), std::string::npos) << message;
  EXPECT_NE(message.find("maximum length 4"), std::string::npos) << message;
}

TEST(AddPositionsTest, WidthMismatchIsInvalidArgument) {
  Matrix table(4, 3);
  Matrix x(2, 2);
  EXPECT_EQ(AddPositions(table.view(), 0, &x).code(), absl::StatusCode::kInvalidArgument);
}

Matrix RandomMatrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Matrix m(rows, cols);
  for (float& v : m.storage()) v = uniform(engine);
  return m;
}

double Dot(const float* a, const float* b, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

// Su et al. 2021, eq. 16: <RoPE(q, m), RoPE(k, n)> depends only on m - n.
TEST(RotaryTest, DotProductDependsOnlyOnRelativePosition) {
  for (RotaryPairing pairing : {RotaryPairing::kInterleaved, RotaryPairing::kHalves}) {
    const RotaryOptions options{.base = 10000.0f, .pairing = pairing};
    const Matrix q0 = RandomMatrix(1, 8, 1), k0 = RandomMatrix(1, 8, 2);
    auto rotated_dot = [&](int64_t m, int64_t n) {
      Matrix q = q0, k = k0;
      EXPECT_TRUE(ApplyRotary(options, 1, m, &q).ok());
      EXPECT_TRUE(ApplyRotary(options, 1, n, &k).ok());
      return Dot(q.data(), k.data(), 8);
    };
    EXPECT_NEAR(rotated_dot(5, 2), rotated_dot(13, 10), 1e-5);
    EXPECT_NEAR(rotated_dot(0, 7), rotated_dot(30, 37), 1e-5);
    EXPECT_GT(std::fabs(rotated_dot(5, 2) - rotated_dot(5, 3)), 1e-4);  // but it does depend on m - n
  }
}

TEST(RotaryTest, PositionZeroIsIdentityAndRotationKeepsNorms) {
  Matrix x = RandomMatrix(4, 12, 3);  // [T=4, H=3 * Dh=4]
  const Matrix original = x;
  ASSERT_TRUE(ApplyRotary({}, 3, 0, &x).ok());
  for (int64_t d = 0; d < 12; ++d) EXPECT_EQ(x.at(0, d), original.at(0, d));
  for (int64_t t = 0; t < 4; ++t) {
    for (int64_t h = 0; h < 3; ++h) {
      EXPECT_NEAR(Dot(x.row(t) + 4 * h, x.row(t) + 4 * h, 4), Dot(original.row(t) + 4 * h, original.row(t) + 4 * h, 4),
                  1e-5);
    }
  }
}

TEST(RotaryTest, TwoDimensionalHeadRotatesByPositionRadians) {
  Matrix x(2, 2);  // head_dim 2: theta_0 = 1, position 1 rotates (1, 0) by 1 radian
  x.at(1, 0) = 1.0f;
  ASSERT_TRUE(ApplyRotary({}, 1, 0, &x).ok());
  EXPECT_FLOAT_EQ(x.at(1, 0), std::cos(1.0f));
  EXPECT_FLOAT_EQ(x.at(1, 1), std::sin(1.0f));
}

TEST(RotaryTest, MatchesTheComplexFormAndRotateHalfInTorch) {
  const Golden g = Golden::Load("rotary");  // x: [T=6, H=2 * Dh=8], positions 3..8
  const int64_t n_heads = g.config.at("n_heads").get<int64_t>();
  const int64_t first_position = g.config.at("first_position").get<int64_t>();
  for (auto [pairing, key] : {std::pair{RotaryPairing::kInterleaved, "interleaved"},
                              {RotaryPairing::kHalves, "halves"}}) {
    Matrix x = ToMatrix(g.View("x"));
    ASSERT_TRUE(ApplyRotary({.base = g.config.at("base").get<float>(), .pairing = pairing}, n_heads, first_position,
                            &x)
                    .ok());
    ExpectClose(std::string("RoPE, ") + key + " pairs", x.view(), g.View(key), 1e-5);
  }
}

TEST(RotaryTest, OddHeadDimIsInvalidArgument) {
  Matrix x(2, 6);
  EXPECT_EQ(ApplyRotary({}, 2, 0, &x).code(), absl::StatusCode::kInvalidArgument);  // head_dim 3
  EXPECT_EQ(ApplyRotary({}, 4, 0, &x).code(), absl::StatusCode::kInvalidArgument);  // 6 % 4 != 0
}

}  // namespace
}  // namespace tokvec
