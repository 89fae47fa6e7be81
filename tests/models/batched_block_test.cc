// RunTransformerBlockBatched must equal RunTransformerBlock (the reference) applied to each sequence, within
// 1e-5: nn.TransformerEncoderLayer's default (post-LN, ReLU, fused in_proj) and GPT-2's (pre-LN, GELU, causal,
// Conv1D layout), separate projections, rotary positions, and the same result for any thread count.
#include "models/batched_block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "embeddings/random_init.h"

namespace tokvec {
namespace {

std::span<const float> Span(const Matrix& m) { return {m.data(), static_cast<size_t>(m.size())}; }

// Random parameters of one block, owned.
struct RandomBlock {
  Matrix qkv, q, k, v, out, up, down, bias_qkv, bias_d, bias_f, gamma1, beta1, gamma2, beta2;
  TransformerBlockWeights weights;

  RandomBlock(int64_t d, int64_t f, WeightLayout layout, bool fused, uint64_t seed) {
    NormalSampler s(seed);
    auto linear = [&](int64_t in, int64_t out_features) {
      return layout == WeightLayout::kOutIn ? s.Matrix(out_features, in, 0.08f) : s.Matrix(in, out_features, 0.08f);
    };
    qkv = linear(d, 3 * d);
    q = linear(d, d);
    k = linear(d, d);
    v = linear(d, d);
    out = linear(d, d);
    up = linear(d, f);
    down = linear(f, d);
    bias_qkv = s.Matrix(1, 3 * d, 0.1f);
    bias_d = s.Matrix(1, d, 0.1f);
    bias_f = s.Matrix(1, f, 0.1f);
    gamma1 = s.Matrix(1, d, 0.2f);
    beta1 = s.Matrix(1, d, 0.2f);
    gamma2 = s.Matrix(1, d, 0.2f);
    beta2 = s.Matrix(1, d, 0.2f);
    for (float& g : gamma1.storage()) g += 1.0f;
    for (float& g : gamma2.storage()) g += 1.0f;
    auto& a = weights.attention;
    if (fused) {
      a.qkv = {.weight = qkv.view(), .bias = Span(bias_qkv), .layout = layout};
    } else {
      a.q = {.weight = q.view(), .bias = Span(bias_d), .layout = layout};
      a.k = {.weight = k.view(), .layout = layout};
      a.v = {.weight = v.view(), .bias = Span(bias_d), .layout = layout};
    }
    a.out = {.weight = out.view(), .bias = Span(bias_d), .layout = layout};
    weights.feed_forward.up = {.weight = up.view(), .bias = Span(bias_f), .layout = layout};
    weights.feed_forward.down = {.weight = down.view(), .bias = Span(bias_d), .layout = layout};
    weights.attention_norm = {.gamma = Span(gamma1), .beta = Span(beta1)};
    weights.feed_forward_norm = {.gamma = Span(gamma2), .beta = Span(beta2)};
  }
};

struct Case {
  std::string name;
  int64_t batch, seq_len, d_model, n_heads, ff;
  NormPlacement norm;
  Activation activation;
  bool causal, fused;
  WeightLayout layout;
  bool rotary = false;  // RoPE, GPT-NeoX pairing
};

class BatchedBlockEqualsReference : public ::testing::TestWithParam<Case> {};

TEST_P(BatchedBlockEqualsReference, WithinOneEMinus5) {
  const Case c = GetParam();
  RandomBlock block(c.d_model, c.ff, c.layout, c.fused, 11);
  BlockConfig config{.n_heads = c.n_heads, .norm = c.norm, .activation = c.activation, .causal = c.causal};
  if (c.rotary) config.rotary = RotaryOptions{.base = 10000.0f, .pairing = RotaryPairing::kHalves};
  NormalSampler sampler(3);
  const Matrix x = sampler.Matrix(c.batch * c.seq_len, c.d_model, 1.0f);  // [B·T, D]
  absl::StatusOr<Matrix> batched = RunTransformerBlockBatched(block.weights, config, x.view(), c.batch, 2);
  ASSERT_TRUE(batched.ok()) << batched.status();
  absl::StatusOr<Matrix> one_thread = RunTransformerBlockBatched(block.weights, config, x.view(), c.batch, 1);
  ASSERT_TRUE(one_thread.ok());
  EXPECT_EQ(batched->storage(), one_thread->storage()) << "thread count changed the result";
  int reported = 0;
  for (int64_t b = 0; b < c.batch; ++b) {
    const MatrixView sequence{x.row(b * c.seq_len), c.seq_len, c.d_model};  // [T, D]
    absl::StatusOr<BlockOutput> expected = RunTransformerBlock(block.weights, config, sequence, {.threads = 1});
    ASSERT_TRUE(expected.ok()) << expected.status();
    for (int64_t t = 0; t < c.seq_len; ++t) {
      for (int64_t d = 0; d < c.d_model; ++d) {
        const float e = expected->hidden.at(t, d), a = batched->at(b * c.seq_len + t, d);
        if (!(std::fabs(e - a) <= 1e-5f) && reported++ < 5) {
          ADD_FAILURE() << "sequence " << b << " token " << t << " dim " << d << ": reference " << e
                        << " batched " << a;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Blocks, BatchedBlockEqualsReference,
    ::testing::Values(Case{"TorchEncoderLayerDefault", 3, 37, 64, 4, 256, NormPlacement::kPostLN,
                           Activation::kRelu, false, true, WeightLayout::kOutIn},
                      Case{"Gpt2Style", 2, 65, 48, 3, 192, NormPlacement::kPreLN, Activation::kGeluTanh, true,
                           true, WeightLayout::kInOut},
                      Case{"SeparateProjections", 2, 20, 32, 2, 100, NormPlacement::kPostLN,
                           Activation::kGeluExact, true, false, WeightLayout::kOutIn},
                      Case{"RotaryGpt2Style", 3, 40, 48, 3, 192, NormPlacement::kPreLN, Activation::kGeluTanh, true,
                           true, WeightLayout::kInOut, true},
                      Case{"RotaryBidirectional", 2, 33, 32, 2, 64, NormPlacement::kPostLN, Activation::kRelu, false,
                           false, WeightLayout::kOutIn, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// A reused workspace (left holding a bigger batch's values) changes nothing.
TEST(BatchedBlockTest, ReusedWorkspaceGivesTheSameBits) {
  RandomBlock block(32, 64, WeightLayout::kOutIn, true, 5);
  const BlockConfig config{.n_heads = 4, .norm = NormPlacement::kPostLN, .activation = Activation::kRelu};
  NormalSampler sampler(8);
  const Matrix big = sampler.Matrix(4 * 30, 32, 1.0f), small = sampler.Matrix(2 * 11, 32, 1.0f);
  BatchedBlockWorkspace workspace;
  ASSERT_TRUE(RunTransformerBlockBatched(block.weights, config, big.view(), 4, 2, &workspace).ok());
  absl::StatusOr<Matrix> reused = RunTransformerBlockBatched(block.weights, config, small.view(), 2, 2, &workspace);
  absl::StatusOr<Matrix> fresh = RunTransformerBlockBatched(block.weights, config, small.view(), 2, 2);
  ASSERT_TRUE(reused.ok() && fresh.ok());
  EXPECT_EQ(reused->storage(), fresh->storage());
}

// One workspace used with 2, 1, then 2 threads again (its worker pool is rebuilt) gives the same bits.
TEST(BatchedBlockTest, WorkspaceAcrossThreadCounts) {
  RandomBlock block(32, 64, WeightLayout::kInOut, true, 6);
  const BlockConfig config{.n_heads = 2, .norm = NormPlacement::kPreLN, .activation = Activation::kGeluTanh,
                           .causal = true};
  NormalSampler sampler(9);
  const Matrix x = sampler.Matrix(3 * 40, 32, 1.0f);  // [B·T, D]
  BatchedBlockWorkspace workspace;
  std::vector<std::vector<float>> results;
  for (int threads : {2, 1, 2, 3}) {
    absl::StatusOr<Matrix> y = RunTransformerBlockBatched(block.weights, config, x.view(), 3, threads, &workspace);
    ASSERT_TRUE(y.ok()) << y.status();
    results.push_back(y->storage());
  }
  for (size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[0], results[i]) << "run " << i;
}

// Sequences of different lengths in one call: each equals the same sequence run alone, bit for bit (GEMM tiles
// never span two sequences), and RunTransformerBlock within 1e-5; for 1 and 2 threads, both norm placements.
TEST(BatchedBlockTest, RaggedEqualsEachSequenceAlone) {
  const std::vector<int64_t> lengths = {37, 5, 0, 64, 1, 12};
  for (const NormPlacement norm : {NormPlacement::kPostLN, NormPlacement::kPreLN}) {
    RandomBlock block(48, 96, WeightLayout::kInOut, true, 12);
    const BlockConfig config{.n_heads = 3, .norm = norm, .activation = Activation::kGeluTanh,
                             .causal = norm == NormPlacement::kPreLN};
    NormalSampler sampler(13);
    const Matrix x = sampler.Matrix(119, 48, 1.0f);  // [Σ lengths, D]
    for (int threads : {1, 2}) {
      Matrix y(x.rows(), x.cols());
      ASSERT_TRUE(RunTransformerBlockRaggedInto(block.weights, config, x.view(), lengths, threads, nullptr, y.data())
                      .ok());
      int64_t row0 = 0;
      for (int64_t length : lengths) {
        if (length > 0) {
          const MatrixView sequence{x.row(row0), length, 48};  // [T, D]
          absl::StatusOr<Matrix> alone = RunTransformerBlockBatched(block.weights, config, sequence, 1, 1);
          ASSERT_TRUE(alone.ok()) << alone.status();
          EXPECT_TRUE(std::equal(alone->data(), alone->data() + alone->size(), y.row(row0)))
              << "sequence at row " << row0 << " of length " << length << ", " << threads << " threads";
          absl::StatusOr<BlockOutput> expected = RunTransformerBlock(block.weights, config, sequence, {.threads = 1});
          ASSERT_TRUE(expected.ok()) << expected.status();
          for (int64_t i = 0; i < expected->hidden.size(); ++i) {
            ASSERT_NEAR(expected->hidden.data()[i], y.row(row0)[i], 1e-5f) << "sequence at row " << row0;
          }
        }
        row0 += length;
      }
    }
  }
}

TEST(BatchedBlockTest, RaggedLengthsMustAddUpToTheRows) {
  RandomBlock block(16, 32, WeightLayout::kOutIn, true, 1);
  const Matrix x(10, 16);
  Matrix y(10, 16);
  const std::vector<int64_t> lengths = {4, 5};
  absl::Status s = RunTransformerBlockRaggedInto(block.weights, {.n_heads = 2}, x.view(), lengths, 1, nullptr,
                                                 y.data());
  ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("add up to 9"), std::string::npos) << s;
  const std::vector<int64_t> negative = {12, -2};
  EXPECT_EQ(RunTransformerBlockRaggedInto(block.weights, {.n_heads = 2}, x.view(), negative, 1, nullptr, y.data())
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BatchedBlockTest, RowsNotDivisibleByBatchIsAnError) {
  RandomBlock block(16, 32, WeightLayout::kOutIn, true, 1);
  const Matrix x(10, 16);
  absl::StatusOr<Matrix> r = RunTransformerBlockBatched(block.weights, {.n_heads = 2}, x.view(), 3, 1);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find("10 rows"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace tokvec
