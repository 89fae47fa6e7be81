#include "attention/scaled_dot_product.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/golden.h"

namespace tokvec {
namespace {

TEST(ScaledDotProductTest, MatchesPyTorchForEachMaskKind) {
  const Golden g = Golden::Load("scaled_dot_product");
  const MatrixView q = g.View("q"), k = g.View("k"), v = g.View("v");  // [5, 4], [6, 4], [6, 3]
  for (const std::string kind : {"none", "causal", "blocked", "additive"}) {
    AttentionMask mask;
    if (kind == "causal") mask.causal = true;
    if (kind == "blocked") mask.blocked = g.Mask("blocked", 0, 5 * 6);
    if (kind == "additive") mask.additive = ToMatrix(g.View("additive"));
    Matrix weights;
    absl::StatusOr<Matrix> context = ScaledDotProductAttention(q, k, v, mask, &weights);
    ASSERT_TRUE(context.ok()) << context.status();
    ExpectClose("attention weights, mask " + kind, weights.view(), g.View(kind + "_weights"), 1e-5);
    ExpectClose("attention context, mask " + kind, context->view(), g.View(kind + "_context"), 1e-5);
  }
}

Matrix RandomMatrix(int64_t rows, int64_t cols, std::mt19937_64& engine) {
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  Matrix m(rows, cols);
  for (float& x : m.storage()) x = uniform(engine);
  return m;
}

TEST(ScaledDotProductTest, EveryRowOfWeightsSumsToOne) {
  std::mt19937_64 engine(11);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t q_len = 1 + trial % 7, k_len = 1 + (trial * 3) % 11, d = 1 + trial % 5;
    const Matrix q = RandomMatrix(q_len, d, engine), k = RandomMatrix(k_len, d, engine),
                 v = RandomMatrix(k_len, 3, engine);
    AttentionMask mask;
    mask.causal = trial % 2 == 0 && q_len <= k_len;  // with Tq > Tk the first queries see no key
    Matrix weights;
    ASSERT_TRUE(ScaledDotProductAttention(q.view(), k.view(), v.view(), mask, &weights).ok());
    for (int64_t i = 0; i < q_len; ++i) {
      double sum = 0.0;
      for (int64_t j = 0; j < k_len; ++j) {
        EXPECT_GE(weights.at(i, j), 0.0f);
        sum += weights.at(i, j);
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << "trial " << trial << " row " << i;
    }
  }
}

TEST(ScaledDotProductTest, FullyMaskedRowGivesZeroWeightsAndZeroContext) {
  std::mt19937_64 engine(12);
  const Matrix q = RandomMatrix(3, 4, engine), k = RandomMatrix(5, 4, engine), v = RandomMatrix(5, 2, engine);
  AttentionMask mask;
  mask.blocked.assign(3 * 5, 0);
  for (int64_t j = 0; j < 5; ++j) mask.blocked[static_cast<size_t>(5 + j)] = 1;  // row 1: every key blocked
  Matrix weights;
  absl::StatusOr<Matrix> context = ScaledDotProductAttention(q.view(), k.view(), v.view(), mask, &weights);
  ASSERT_TRUE(context.ok());
  for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(weights.at(1, j), 0.0f);
  for (int64_t c = 0; c < 2; ++c) EXPECT_EQ(context->at(1, c), 0.0f);
  for (int64_t i : {0, 2}) EXPECT_FALSE(std::isnan(context->at(i, 0)));
  // Key padding of every key: all rows are zeros.
  AttentionMask all_padding;
  all_padding.key_padding.assign(5, 1);
  absl::StatusOr<Matrix> padded = ScaledDotProductAttention(q.view(), k.view(), v.view(), all_padding);
  ASSERT_TRUE(padded.ok());
  for (float x : padded->storage()) EXPECT_EQ(x, 0.0f);
}

TEST(ScaledDotProductTest, CausalChangingAFutureKeyLeavesEarlierRowsUnchanged) {
  std::mt19937_64 engine(13);
  const Matrix q = RandomMatrix(6, 4, engine), v = RandomMatrix(6, 3, engine);
  Matrix k = RandomMatrix(6, 4, engine);
  AttentionMask mask;
  mask.causal = true;
  absl::StatusOr<Matrix> before = ScaledDotProductAttention(q.view(), k.view(), v.view(), mask);
  for (int64_t d = 0; d < 4; ++d) k.at(4, d) += 1.0f;  // change key 4
  Matrix v2 = v;
  v2.at(4, 0) = 100.0f;
  absl::StatusOr<Matrix> after = ScaledDotProductAttention(q.view(), k.view(), v2.view(), mask);
  ASSERT_TRUE(before.ok() && after.ok());
  for (int64_t t = 0; t < 4; ++t) {
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(before->at(t, c), after->at(t, c)) << "row " << t;
  }
  EXPECT_NE(before->at(4, 0), after->at(4, 0));
}

TEST(ScaledDotProductTest, ShapeErrorsAreInvalidArgument) {
  Matrix q(2, 4), k(3, 5), v(3, 2), v_short(2, 2), k_ok(3, 4);
  EXPECT_EQ(ScaledDotProductAttention(q.view(), k.view(), v.view(), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ScaledDotProductAttention(q.view(), k_ok.view(), v_short.view(), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  AttentionMask bad_padding;
  bad_padding.key_padding = {0, 1};
  absl::StatusOr<Matrix> r = ScaledDotProductAttention(q.view(), k_ok.view(), v.view(), bad_padding);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find("key padding mask has 2 entries"), std::string::npos);
}

}  // namespace
}  // namespace tokvec
