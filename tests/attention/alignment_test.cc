#include "attention/alignment.h"

#include <gtest/gtest.h>

#include "tests/golden.h"

namespace tokvec {
namespace {

TEST(AlignmentTest, BahdanauAdditiveMatchesTorch) {
  const Golden g = Golden::Load("alignment");
  const AdditiveScorer scorer{.w = {.weight = g.View("w"), .bias = g.Span("b")}, .v = g.Span("v")};
  absl::StatusOr<Alignment> a = AdditiveAttention(g.View("s"), g.View("h"), scorer);
  ASSERT_TRUE(a.ok()) << a.status();
  ExpectClose("Bahdanau additive alignment weights", a->weights.view(), g.View("additive_weights"), 1e-5);
  ExpectClose("Bahdanau additive context", a->context.view(), g.View("additive_context"), 1e-5);
}

TEST(AlignmentTest, BahdanauWithConv1DLayoutGivesTheSameResult) {
  const Golden g = Golden::Load("alignment");
  const MatrixView w = g.View("w");  // [A, Ds + Dh]
  Matrix wt(w.cols, w.rows);
  for (int64_t r = 0; r < w.rows; ++r) {
    for (int64_t c = 0; c < w.cols; ++c) wt.at(c, r) = w.at(r, c);
  }
  const AdditiveScorer scorer{.w = {.weight = wt.view(), .bias = g.Span("b"), .layout = WeightLayout::kInOut},
                              .v = g.Span("v")};
  absl::StatusOr<Alignment> a = AdditiveAttention(g.View("s"), g.View("h"), scorer);
  ASSERT_TRUE(a.ok()) << a.status();
  ExpectClose("Bahdanau additive weights, W as [in, out]", a->weights.view(), g.View("additive_weights"), 1e-5);
}

TEST(AlignmentTest, LuongDotAndGeneralMatchTorch) {
  const Golden g = Golden::Load("alignment");
  absl::StatusOr<Alignment> dot = DotAttention(g.View("s4"), g.View("h"));
  ASSERT_TRUE(dot.ok()) << dot.status();
  ExpectClose("Luong dot alignment weights", dot->weights.view(), g.View("dot_weights"), 1e-5);
  ExpectClose("Luong dot context", dot->context.view(), g.View("dot_context"), 1e-5);
  absl::StatusOr<Alignment> general = GeneralAttention(g.View("s"), g.View("h"), g.View("w_general"));
  ASSERT_TRUE(general.ok()) << general.status();
  ExpectClose("Luong general alignment weights", general->weights.view(), g.View("general_weights"), 1e-5);
  ExpectClose("Luong general context", general->context.view(), g.View("general_context"), 1e-5);
}

TEST(AlignmentTest, MaskedKeysGetNoWeight) {
  const Golden g = Golden::Load("alignment");
  AttentionMask mask;
  mask.key_padding = {0, 0, 1, 0, 1, 0};
  absl::StatusOr<Alignment> dot = DotAttention(g.View("s4"), g.View("h"), mask);
  ASSERT_TRUE(dot.ok());
  for (int64_t i = 0; i < dot->weights.rows(); ++i) {
    EXPECT_EQ(dot->weights.at(i, 2), 0.0f);
    EXPECT_EQ(dot->weights.at(i, 4), 0.0f);
    float sum = 0.0f;
    for (int64_t j = 0; j < 6; ++j) sum += dot->weights.at(i, j);
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
}

TEST(AlignmentTest, ShapeErrorsAreInvalidArgument) {
  const Golden g = Golden::Load("alignment");
  EXPECT_EQ(DotAttention(g.View("s"), g.View("h")).status().code(), absl::StatusCode::kInvalidArgument);  // 5 vs 4
  EXPECT_EQ(GeneralAttention(g.View("s4"), g.View("h"), g.View("w_general")).status().code(),
            absl::StatusCode::kInvalidArgument);
  const AdditiveScorer short_v{.w = {.weight = g.View("w"), .bias = g.Span("b")}, .v = g.Span("v").subspan(0, 2)};
  EXPECT_EQ(AdditiveAttention(g.View("s"), g.View("h"), short_v).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tokvec
