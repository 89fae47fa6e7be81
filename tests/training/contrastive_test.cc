// SimCSE's pooling and InfoNCE loss (training/contrastive.h): a value computed by hand, and finite differences of
// the loss for every pooling.
#include "training/contrastive.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec::training {
namespace {

// Two lines, unit vectors: z0 = z'0 = e0, z1 = z'1 = e1. s = I/τ, so each row's loss is log(1 + exp(-1/τ)).
TEST(ContrastiveTest, InfoNceOfOrthogonalPairsIsLogOnePlusExp) {
  const std::vector<float> pooled = {1, 0, 0, 3, 2, 0, 0, 0.5f};  // [4, 2]; norms do not matter
  const float tau = 0.5f;
  EXPECT_NEAR(InfoNceForwardBackward(pooled.data(), 2, 2, tau, 1.0f, nullptr), std::log1p(std::exp(-1.0 / tau)),
              1e-12);
}

// d(loss)/d(hidden) against central differences of the loss, for mean, cls and last pooling with padded rows.
TEST(ContrastiveTest, GradientMatchesFiniteDifferences) {
  const int64_t P = 3, T = 5, C = 4, R = 2 * P;
  const std::vector<int32_t> lengths = {5, 2, 3, 4, 1, 3};
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> hidden(static_cast<size_t>(R * T * C));
  for (float& h : hidden) h = normal(rng);
  for (Pooling pooling : {Pooling::kMean, Pooling::kCls, Pooling::kLast}) {
    SCOPED_TRACE(PoolingName(pooling));
    const SimcseShape shape{.pairs = P, .T = T, .C = C, .key_lengths = lengths, .pooling = pooling,
                            .temperature = 0.3f, .loss_scale = 1.0f};
    std::vector<float> grad(hidden.size(), 0.0f);
    auto loss = SimcseLoss(hidden.data(), grad.data(), shape);
    ASSERT_TRUE(loss.ok()) << loss.status();
    double worst = 0, largest = 0;
    for (size_t i = 0; i < hidden.size(); ++i) {
      std::vector<float> h = hidden;
      const float eps = 1e-2f;
      h[i] = hidden[i] + eps;
      const double up = SimcseLoss(h.data(), nullptr, shape)->mean();
      h[i] = hidden[i] - eps;
      const double down = SimcseLoss(h.data(), nullptr, shape)->mean();
      const double numeric = (up - down) / (2 * static_cast<double>(eps));
      worst = std::max(worst, std::abs(numeric - grad[i]));
      largest = std::max(largest, std::abs(numeric));
      // Padding and unpooled positions get exactly nothing.
      const int64_t row = static_cast<int64_t>(i) / (T * C), t = static_cast<int64_t>(i) / C % T;
      const int32_t n = lengths[static_cast<size_t>(row)];
      const bool pooled = pooling == Pooling::kMean ? t < n : pooling == Pooling::kCls ? t == 0 : t == n - 1;
      if (!pooled) EXPECT_EQ(grad[i], 0.0f) << "row " << row << " t " << t;
    }
    EXPECT_GT(largest, 1e-2);
    EXPECT_LT(worst, 2e-3 * largest);
  }
}

TEST(ContrastiveTest, RefusesOneLineMaxPoolingAndBadTemperature) {
  const std::vector<float> hidden(2 * 3 * 2, 1.0f);
  const std::vector<int32_t> lengths = {3, 3};
  EXPECT_FALSE(SimcseLoss(hidden.data(), nullptr, {.pairs = 1, .T = 3, .C = 2, .key_lengths = lengths}).ok());
  const std::vector<int32_t> four = {3, 3, 3, 3};
  const std::vector<float> h4(4 * 3 * 2, 1.0f);
  EXPECT_FALSE(SimcseLoss(h4.data(), nullptr,
                          {.pairs = 2, .T = 3, .C = 2, .key_lengths = four, .pooling = Pooling::kMax}).ok());
  EXPECT_FALSE(SimcseLoss(h4.data(), nullptr, {.pairs = 2, .T = 3, .C = 2, .key_lengths = four, .temperature = 0})
                   .ok());
  EXPECT_TRUE(SimcseLoss(h4.data(), nullptr, {.pairs = 2, .T = 3, .C = 2, .key_lengths = four}).ok());
}

}  // namespace
}  // namespace tokvec::training
