#include "attention/multi_head_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "tests/golden.h"

namespace tokvec {
namespace {

// nn.MultiheadAttention's parameters as tokvec weights (nn.Linear layout, fused in_proj unless kdim != d_model).
MultiHeadAttentionWeights TorchWeights(const Golden& g, int64_t n_heads) {
  MultiHeadAttentionWeights w;
  const int64_t d_model = g.View("out_proj_weight").rows;
  const std::span<const float> in_bias = g.Span("in_proj_bias");
  if (g.Has("in_proj_weight")) {
    w.qkv = {.weight = g.View("in_proj_weight"), .bias = in_bias};
  } else {  // separate projections (kdim != d_model)
    w.q = {.weight = g.View("q_proj_weight"), .bias = in_bias.subspan(0, d_model)};
    w.k = {.weight = g.View("k_proj_weight"), .bias = in_bias.subspan(d_model, d_model)};
    w.v = {.weight = g.View("v_proj_weight"), .bias = in_bias.subspan(2 * d_model, d_model)};
  }
  w.out = {.weight = g.View("out_proj_weight"), .bias = g.Span("out_proj_bias")};
  w.n_heads = n_heads;
  return w;
}

// Rows of head h in torch's [B, H, Tq, Tk] weights for batch b.
MatrixView HeadWeights(const Golden& g, int64_t b, int64_t h, int64_t q_len) {
  const MatrixView all = g.Batch("weights", b);  // [H * Tq, Tk]
  return {all.data + h * q_len * all.cols, q_len, all.cols};
}

void CheckHeads(const std::string& what, const Golden& g, int64_t b, const MultiHeadAttentionOutput& out) {
  for (size_t h = 0; h < out.head_weights.size(); ++h) {
    ExpectClose(what + " weights head " + std::to_string(h), out.head_weights[h].view(),
                HeadWeights(g, b, static_cast<int64_t>(h), out.head_weights[h].rows()), 1e-5);
  }
}

TEST(MultiHeadAttentionTest, SelfCausalMatchesTorch) {
  const Golden g = Golden::Load("mha_self_causal");
  const MultiHeadAttentionWeights w = TorchWeights(g, 2);
  for (int64_t b = 0; b < 2; ++b) {
    absl::StatusOr<MultiHeadAttentionOutput> out =
        SelfAttention(g.Batch("x", b), w, {.causal = true, .keep_weights = true});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::string what = "nn.MultiheadAttention self causal, batch " + std::to_string(b);
    ExpectClose(what + " output", out->output.view(), g.Batch("output", b), 1e-5);
    ASSERT_EQ(out->head_weights.size(), 2u);
    CheckHeads(what, g, b, *out);
  }
}

TEST(MultiHeadAttentionTest, SelfKeyPaddingMatchesTorch) {
  const Golden g = Golden::Load("mha_self_key_padding");
  const MultiHeadAttentionWeights w = TorchWeights(g, 2);
  for (int64_t b = 0; b < 2; ++b) {
    MultiHeadAttentionOptions options{.keep_weights = true};
    options.mask.key_padding = g.Mask("key_padding", b, 5);
    absl::StatusOr<MultiHeadAttentionOutput> out = SelfAttention(g.Batch("x", b), w, options);
    ASSERT_TRUE(out.ok()) << out.status();
    const std::string what = "nn.MultiheadAttention self key padding, batch " + std::to_string(b);
    ExpectClose(what + " output", out->output.view(), g.Batch("output", b), 1e-5);
    CheckHeads(what, g, b, *out);
  }
}

TEST(MultiHeadAttentionTest, CrossMatchesTorch) {
  const Golden g = Golden::Load("mha_cross");
  const MultiHeadAttentionWeights w = TorchWeights(g, 2);
  for (int64_t b = 0; b < 2; ++b) {
    MultiHeadAttentionOptions options{.keep_weights = true};
    options.mask.key_padding = g.Mask("key_padding", b, 6);
    absl::StatusOr<MultiHeadAttentionOutput> out = CrossAttention(g.Batch("x", b), g.Batch("memory", b), w, options);
    ASSERT_TRUE(out.ok()) << out.status();
    const std::string what = "nn.MultiheadAttention cross, batch " + std::to_string(b);
    ExpectClose(what + " output", out->output.view(), g.Batch("output", b), 1e-5);
    CheckHeads(what, g, b, *out);
  }
}

TEST(MultiHeadAttentionTest, CrossWithSeparateProjectionsMatchesTorch) {
  const Golden g = Golden::Load("mha_cross_kdim");  // kdim = vdim = 6, d_model 8
  const MultiHeadAttentionWeights w = TorchWeights(g, 2);
  ASSERT_FALSE(w.fused());
  absl::StatusOr<MultiHeadAttentionOutput> out =
      CrossAttention(g.Batch("x", 0), g.Batch("memory", 0), w, {.keep_weights = true});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose("nn.MultiheadAttention(kdim=6) cross output", out->output.view(), g.Batch("output", 0), 1e-5);
  CheckHeads("nn.MultiheadAttention(kdim=6) cross", g, 0, *out);
}

Matrix Transposed(MatrixView m) {
  Matrix t(m.cols, m.rows);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) t.at(c, r) = m.at(r, c);
  }
  return t;
}

// The same parameters in every layout: fused [3D, D], separate [D, D] x 3, and GPT-2's Conv1D [D, 3D].
TEST(MultiHeadAttentionTest, FusedSeparateAndConv1DLayoutsAgree) {
  const Golden g = Golden::Load("mha_self_causal");
  const MultiHeadAttentionWeights fused = TorchWeights(g, 2);
  MultiHeadAttentionWeights separate = fused;
  separate.qkv = {};
  separate.q = SliceOutputs(fused.qkv, 0, 8);
  separate.k = SliceOutputs(fused.qkv, 8, 8);
  separate.v = SliceOutputs(fused.qkv, 16, 8);
  const Matrix qkv_t = Transposed(fused.qkv.weight), out_t = Transposed(fused.out.weight);
  MultiHeadAttentionWeights conv1d = fused;
  conv1d.qkv = {.weight = qkv_t.view(), .bias = fused.qkv.bias, .layout = WeightLayout::kInOut};
  conv1d.out = {.weight = out_t.view(), .bias = fused.out.bias, .layout = WeightLayout::kInOut};
  for (const auto& [name, w] : {std::pair<std::string, const MultiHeadAttentionWeights*>{"separate", &separate},
                                {"conv1d", &conv1d}}) {
    absl::StatusOr<MultiHeadAttentionOutput> self = SelfAttention(g.Batch("x", 0), *w, {.causal = true});
    ASSERT_TRUE(self.ok()) << name << ": " << self.status();
    ExpectClose("self-attention, " + name + " weights vs torch", self->output.view(), g.Batch("output", 0), 1e-5);
  }
  // Cross-attention through the fused Conv1D weights uses column slices of [D, 3D].
  const Golden cg = Golden::Load("mha_cross");
  const MultiHeadAttentionWeights cross = TorchWeights(cg, 2);
  const Matrix cross_qkv_t = Transposed(cross.qkv.weight), cross_out_t = Transposed(cross.out.weight);
  MultiHeadAttentionWeights cross_conv1d = cross;
  cross_conv1d.qkv = {.weight = cross_qkv_t.view(), .bias = cross.qkv.bias, .layout = WeightLayout::kInOut};
  cross_conv1d.out = {.weight = cross_out_t.view(), .bias = cross.out.bias, .layout = WeightLayout::kInOut};
  MultiHeadAttentionOptions options;
  options.mask.key_padding = cg.Mask("key_padding", 0, 6);
  absl::StatusOr<MultiHeadAttentionOutput> out =
      CrossAttention(cg.Batch("x", 0), cg.Batch("memory", 0), cross_conv1d, options);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose("cross-attention, conv1d weights vs torch", out->output.view(), cg.Batch("output", 0), 1e-5);
}

struct RandomWeights {
  Matrix qkv, out;  // [3D, D], [D, D]
  std::vector<float> qkv_bias, out_bias;
  MultiHeadAttentionWeights Weights(int64_t n_heads) const {
    MultiHeadAttentionWeights w;
    w.qkv = {.weight = qkv.view(), .bias = qkv_bias};
    w.out = {.weight = out.view(), .bias = out_bias};
    w.n_heads = n_heads;
    return w;
  }
};

Matrix RandomMatrix(int64_t rows, int64_t cols, std::mt19937_64& engine, float scale = 1.0f) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  Matrix m(rows, cols);
  for (float& x : m.storage()) x = uniform(engine);
  return m;
}

RandomWeights MakeRandomWeights(int64_t d_model, std::mt19937_64& engine) {
  RandomWeights r;
  r.qkv = RandomMatrix(3 * d_model, d_model, engine, 0.5f);
  r.out = RandomMatrix(d_model, d_model, engine, 0.5f);
  r.qkv_bias = RandomMatrix(1, 3 * d_model, engine, 0.1f).storage();
  r.out_bias = RandomMatrix(1, d_model, engine, 0.1f).storage();
  return r;
}

TEST(MultiHeadAttentionTest, OneAndTwoThreadsAreBitIdentical) {
  std::mt19937_64 engine(21);
  const RandomWeights r = MakeRandomWeights(32, engine);
  const Matrix x = RandomMatrix(70, 32, engine);
  for (bool causal : {false, true}) {
    absl::StatusOr<MultiHeadAttentionOutput> one =
        SelfAttention(x.view(), r.Weights(4), {.causal = causal, .threads = 1, .keep_weights = true});
    absl::StatusOr<MultiHeadAttentionOutput> two =
        SelfAttention(x.view(), r.Weights(4), {.causal = causal, .threads = 2, .keep_weights = true});
    ASSERT_TRUE(one.ok() && two.ok());
    EXPECT_EQ(one->output.storage(), two->output.storage());
    for (size_t h = 0; h < 4; ++h) EXPECT_EQ(one->head_weights[h].storage(), two->head_weights[h].storage());
  }
}

TEST(MultiHeadAttentionTest, CausalChangingTokenTPlus1LeavesEarlierOutputsUnchanged) {
  std::mt19937_64 engine(22);
  const RandomWeights r = MakeRandomWeights(16, engine);
  for (int64_t t = 0; t < 7; ++t) {
    Matrix x = RandomMatrix(8, 16, engine);
    absl::StatusOr<MultiHeadAttentionOutput> before = SelfAttention(x.view(), r.Weights(4), {.causal = true});
    for (int64_t d = 0; d < 16; ++d) x.at(t + 1, d) = -x.at(t + 1, d) + 0.5f;
    absl::StatusOr<MultiHeadAttentionOutput> after = SelfAttention(x.view(), r.Weights(4), {.causal = true});
    ASSERT_TRUE(before.ok() && after.ok());
    for (int64_t s = 0; s <= t; ++s) {
      for (int64_t d = 0; d < 16; ++d) ASSERT_EQ(before->output.at(s, d), after->output.at(s, d)) << t << " " << s;
    }
    EXPECT_NE(before->output.at(t + 1, 0), after->output.at(t + 1, 0));
  }
}

TEST(MultiHeadAttentionTest, WithoutPositionsPermutingTheInputPermutesTheOutput) {
  std::mt19937_64 engine(23);
  const RandomWeights r = MakeRandomWeights(16, engine);
  const Matrix x = RandomMatrix(9, 16, engine);
  std::vector<int64_t> perm(9);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), engine);
  Matrix permuted(9, 16);
  for (int64_t t = 0; t < 9; ++t) std::copy_n(x.row(perm[t]), 16, permuted.row(t));
  absl::StatusOr<MultiHeadAttentionOutput> out = SelfAttention(x.view(), r.Weights(2), {});
  absl::StatusOr<MultiHeadAttentionOutput> out_p = SelfAttention(permuted.view(), r.Weights(2), {});
  ASSERT_TRUE(out.ok() && out_p.ok());
  double diff = 0.0;
  for (int64_t t = 0; t < 9; ++t) {
    for (int64_t d = 0; d < 16; ++d) diff = std::max<double>(diff, std::fabs(out_p->output.at(t, d) - out->output.at(perm[t], d)));
  }
  EXPECT_LE(diff, 1e-5);
  // With RoPE the positions matter: the property no longer holds.
  MultiHeadAttentionOptions rope{.rotary = RotaryOptions{}};
  absl::StatusOr<MultiHeadAttentionOutput> r1 = SelfAttention(x.view(), r.Weights(2), rope);
  absl::StatusOr<MultiHeadAttentionOutput> r2 = SelfAttention(permuted.view(), r.Weights(2), rope);
  ASSERT_TRUE(r1.ok() && r2.ok());
  double rope_diff = 0.0;
  for (int64_t t = 0; t < 9; ++t) rope_diff = std::max<double>(rope_diff, std::fabs(r2->output.at(t, 0) - r1->output.at(perm[t], 0)));
  EXPECT_GT(rope_diff, 1e-4);
}

TEST(MultiHeadAttentionTest, HeadsNotDividingDModelIsInvalidArgument) {
  std::mt19937_64 engine(24);
  const RandomWeights r = MakeRandomWeights(12, engine);
  const Matrix x = RandomMatrix(3, 12, engine);
  absl::StatusOr<MultiHeadAttentionOutput> out = SelfAttention(x.view(), r.Weights(5), {});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("d_model 12 is not divisible by n_heads 5"), std::string::npos)
      << out.status();
}

TEST(MultiHeadAttentionTest, WrongProjectionShapeIsInvalidArgumentNamingIt) {
  std::mt19937_64 engine(25);
  const RandomWeights r = MakeRandomWeights(8, engine);
  MultiHeadAttentionWeights w = r.Weights(2);
  const Matrix bad_out = RandomMatrix(8, 6, engine);
  w.out = {.weight = bad_out.view()};
  const Matrix x = RandomMatrix(3, 8, engine);
  absl::StatusOr<MultiHeadAttentionOutput> out = SelfAttention(x.view(), w, {});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("attention out"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace tokvec
