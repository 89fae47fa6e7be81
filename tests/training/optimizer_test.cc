// Schedules, clipping and the optimizers on hand-checkable cases.
#include "training/optimizer.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec::training {
namespace {

TEST(OptimizerTest, ScheduleWarmsUpThenDecays) {
  Schedule s{.kind = ScheduleKind::kCosine, .lr = 1.0, .warmup = 2, .total_steps = 6};
  EXPECT_DOUBLE_EQ(ScheduledLr(s, 0), 0.5);
  EXPECT_DOUBLE_EQ(ScheduledLr(s, 1), 1.0);
  EXPECT_DOUBLE_EQ(ScheduledLr(s, 2), 1.0);                      // p = 0
  EXPECT_NEAR(ScheduledLr(s, 4), 0.5, 1e-15);                    // p = 1/2
  s.kind = ScheduleKind::kLinear;
  EXPECT_DOUBLE_EQ(ScheduledLr(s, 3), 0.75);
  s.kind = ScheduleKind::kConstant;
  EXPECT_DOUBLE_EQ(ScheduledLr(s, 5), 1.0);
  EXPECT_FALSE(ParseSchedule("step").ok());
}

TEST(OptimizerTest, ClipScalesToMaxNorm) {
  std::vector<float> g = {3.0f, 4.0f};
  EXPECT_DOUBLE_EQ(ClipGradNorm(g, 1.0), 5.0);
  EXPECT_NEAR(g[0], 0.6f, 1e-6);
  EXPECT_NEAR(g[1], 0.8f, 1e-6);
  std::vector<float> small = {0.3f, 0.4f};
  ClipGradNorm(small, 1.0);
  EXPECT_EQ(small[0], 0.3f);  // under the limit: untouched
}

TEST(OptimizerTest, AdamWFirstStepMovesByLrAndDecaysMatricesOnly) {
  // Step 1: m̂ = g, v̂ = g², so the update is lr·g/(|g| + eps) ≈ lr·sign(g); decay shrinks only the matrix.
  std::vector<ParameterInfo> infos = {{"w", {1, 2}, 0, 2}, {"b", {1}, 2, 1}};
  Optimizer opt({.kind = OptimizerKind::kAdamW, .weight_decay = 0.5}, infos, 3);
  std::vector<float> params = {1.0f, -1.0f, 1.0f}, grads = {0.2f, -3.0f, 0.1f};
  opt.Step(params, grads, 0.1);
  EXPECT_NEAR(params[0], 1.0 * (1 - 0.05) - 0.1, 1e-6);
  EXPECT_NEAR(params[1], -1.0 * (1 - 0.05) + 0.1, 1e-6);
  EXPECT_NEAR(params[2], 1.0 - 0.1, 1e-6);
}

TEST(OptimizerTest, SgdMomentumAccumulates) {
  std::vector<ParameterInfo> infos = {{"b", {2}, 0, 2}};
  Optimizer opt({.kind = OptimizerKind::kSgd, .weight_decay = 0.0, .momentum = 0.5}, infos, 2);
  std::vector<float> params = {0.0f, 0.0f}, grads = {1.0f, -2.0f};
  opt.Step(params, grads, 0.1);  // b = g
  opt.Step(params, grads, 0.1);  // b = 0.5 g + g
  EXPECT_NEAR(params[0], -0.1 - 0.15, 1e-7);
  EXPECT_NEAR(params[1], 0.2 + 0.3, 1e-7);
}

}  // namespace
}  // namespace tokvec::training
