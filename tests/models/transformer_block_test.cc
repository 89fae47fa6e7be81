#include "models/transformer_block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "embeddings/positional.h"
#include "embeddings/token_embedding.h"
#include "tests/golden.h"

namespace tokvec {
namespace {

// nn.TransformerEncoderLayer's parameters (nn.Linear layout) as a tokvec block.
TransformerBlockWeights EncoderLayerWeights(const Golden& g, float eps) {
  TransformerBlockWeights w;
  w.attention.qkv = {.weight = g.View("self_attn.in_proj_weight"), .bias = g.Span("self_attn.in_proj_bias")};
  w.attention.out = {.weight = g.View("self_attn.out_proj_weight"), .bias = g.Span("self_attn.out_proj_bias")};
  w.attention_norm = {.gamma = g.Span("norm1.weight"), .beta = g.Span("norm1.bias"), .eps = eps};
  w.feed_forward.up = {.weight = g.View("linear1.weight"), .bias = g.Span("linear1.bias")};
  w.feed_forward.down = {.weight = g.View("linear2.weight"), .bias = g.Span("linear2.bias")};
  w.feed_forward_norm = {.gamma = g.Span("norm2.weight"), .beta = g.Span("norm2.bias"), .eps = eps};
  return w;
}

TEST(TransformerBlockTest, EncoderLayerMatchesTorchBothNormPlacementsAndActivations) {
  for (const std::string name : {"encoder_layer_post_ln_relu", "encoder_layer_post_ln_gelu",
                                 "encoder_layer_pre_ln_relu", "encoder_layer_pre_ln_gelu"}) {
    const Golden g = Golden::Load(name);
    absl::StatusOr<Activation> activation = ParseActivation(g.config.at("activation").get<std::string>());
    ASSERT_TRUE(activation.ok());
    const BlockConfig config{.n_heads = g.config.at("n_heads").get<int64_t>(),
                             .norm = g.config.at("norm_first").get<bool>() ? NormPlacement::kPreLN
                                                                           : NormPlacement::kPostLN,
                             .activation = *activation};
    const TransformerBlockWeights w = EncoderLayerWeights(g, g.config.at("eps").get<float>());
    absl::StatusOr<BlockOutput> out = RunTransformerBlock(w, config, g.Batch("x", 0), {});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    ExpectClose("nn.TransformerEncoderLayer " + name.substr(14), out->hidden.view(), g.Batch("output", 0), 1e-5);
  }
}

// The tiny GPT-2 of the golden (Hugging Face tensor names, Conv1D [in, out] weights).
struct Gpt2 {
  TransformerStack stack;
  MatrixView wte, wpe;
};

Gpt2 LoadGpt2(const Golden& g) {
  const auto linear = [&](const std::string& name) {
    return LinearWeights{.weight = g.View(name + ".weight"), .bias = g.Span(name + ".bias"),
                         .layout = WeightLayout::kInOut};
  };
  const float eps = g.config.at("layer_norm_epsilon").get<float>();
  const auto norm = [&](const std::string& name) {
    return LayerNormWeights{.gamma = g.Span(name + ".weight"), .beta = g.Span(name + ".bias"), .eps = eps};
  };
  Gpt2 model;
  model.wte = g.View("wte.weight");
  model.wpe = g.View("wpe.weight");
  for (int64_t layer = 0; layer < g.config.at("n_layer").get<int64_t>(); ++layer) {
    const std::string p = "h." + std::to_string(layer) + ".";
    TransformerBlockWeights block;
    block.attention.qkv = linear(p + "attn.c_attn");
    block.attention.out = linear(p + "attn.c_proj");
    block.attention_norm = norm(p + "ln_1");
    block.feed_forward = {.up = linear(p + "mlp.c_fc"), .down = linear(p + "mlp.c_proj")};
    block.feed_forward_norm = norm(p + "ln_2");
    model.stack.blocks.push_back(block);
  }
  model.stack.final_norm = norm("ln_f");
  model.stack.config = {.n_heads = g.config.at("n_head").get<int64_t>(), .norm = NormPlacement::kPreLN,
                        .activation = Activation::kGeluTanh, .causal = true};
  return model;
}

TEST(TransformerStackTest, TinyGpt2MatchesTorchEndToEnd) {
  const Golden g = Golden::Load("gpt2_tiny");
  const Gpt2 model = LoadGpt2(g);
  std::vector<uint32_t> ids;
  for (float id : g.Span("ids")) ids.push_back(static_cast<uint32_t>(id));
  absl::StatusOr<Matrix> x = EmbedTokens(model.wte, ids);  // [T, D]
  ASSERT_TRUE(x.ok()) << x.status();
  ASSERT_TRUE(AddPositions(model.wpe, 0, &*x).ok());
  for (int threads : {1, 2}) {
    absl::StatusOr<StackOutput> out =
        RunTransformerStack(model.stack, x->view(), {.threads = threads, .keep_weights_of = {0, 1}});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::string suffix = ", threads " + std::to_string(threads);
    ExpectClose("tiny GPT-2 (2 layers) final hidden states" + suffix, out->hidden.view(), g.View("output"), 1e-4);
    for (int64_t layer : {0, 1}) {
      const MatrixView all = g.Batch("weights_layer" + std::to_string(layer), 0);  // head 0 of [H, T, T]
      const int64_t seq_len = all.rows;
      for (int64_t h = 0; h < 4; ++h) {
        const float* head = g.Span("weights_layer" + std::to_string(layer)).data() + h * seq_len * seq_len;
        ExpectClose("tiny GPT-2 attention layer " + std::to_string(layer) + " head " + std::to_string(h) + suffix,
                    out->attention_weights.at(layer)[static_cast<size_t>(h)].view(), {head, seq_len, seq_len},
                    1e-5);
      }
    }
  }
}

Matrix RandomMatrix(int64_t rows, int64_t cols, std::mt19937_64& engine, float scale) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  Matrix m(rows, cols);
  for (float& x : m.storage()) x = uniform(engine);
  return m;
}

TEST(TransformerStackTest, OneAndTwoThreadsAreBitIdentical) {
  const Golden g = Golden::Load("gpt2_tiny");
  const Gpt2 model = LoadGpt2(g);
  std::mt19937_64 engine(31);
  const Matrix x = RandomMatrix(100, 16, engine, 1.0f);  // longer than the golden: several row blocks
  absl::StatusOr<StackOutput> one = RunTransformerStack(model.stack, x.view(), {.threads = 1, .keep_weights_of = {1}});
  absl::StatusOr<StackOutput> two = RunTransformerStack(model.stack, x.view(), {.threads = 2, .keep_weights_of = {1}});
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->hidden.storage(), two->hidden.storage());
  for (size_t h = 0; h < 4; ++h) {
    EXPECT_EQ(one->attention_weights.at(1)[h].storage(), two->attention_weights.at(1)[h].storage());
  }
}

TEST(TransformerStackTest, CausalChangingTokenTPlus1LeavesEarlierOutputsUnchanged) {
  const Golden g = Golden::Load("gpt2_tiny");
  const Gpt2 model = LoadGpt2(g);
  std::mt19937_64 engine(32);
  for (int64_t t = 0; t < 8; ++t) {
    Matrix x = RandomMatrix(9, 16, engine, 1.0f);
    absl::StatusOr<StackOutput> before = RunTransformerStack(model.stack, x.view(), {});
    for (int64_t d = 0; d < 16; ++d) x.at(t + 1, d) = 0.5f - x.at(t + 1, d);  // (a constant shift is LayerNorm-invisible)
    absl::StatusOr<StackOutput> after = RunTransformerStack(model.stack, x.view(), {});
    ASSERT_TRUE(before.ok() && after.ok());
    for (int64_t s = 0; s <= t; ++s) {
      for (int64_t d = 0; d < 16; ++d) ASSERT_EQ(before->hidden.at(s, d), after->hidden.at(s, d)) << t << " " << s;
    }
    EXPECT_NE(before->hidden.at(t + 1, 0), after->hidden.at(t + 1, 0));
  }
}

TEST(TransformerStackTest, BidirectionalWithoutPositionsIsPermutationEquivariant) {
  const Golden g = Golden::Load("encoder_layer_post_ln_relu");
  TransformerStack stack;
  stack.blocks = {EncoderLayerWeights(g, 1e-5f), EncoderLayerWeights(g, 1e-5f)};
  stack.config = {.n_heads = 2, .norm = NormPlacement::kPostLN, .activation = Activation::kRelu};
  std::mt19937_64 engine(33);
  const Matrix x = RandomMatrix(7, 8, engine, 1.0f);
  std::vector<int64_t> perm(7);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), engine);
  Matrix permuted(7, 8);
  for (int64_t t = 0; t < 7; ++t) std::copy_n(x.row(perm[t]), 8, permuted.row(t));
  absl::StatusOr<StackOutput> out = RunTransformerStack(stack, x.view(), {});
  absl::StatusOr<StackOutput> out_p = RunTransformerStack(stack, permuted.view(), {});
  ASSERT_TRUE(out.ok() && out_p.ok());
  double diff = 0.0;
  for (int64_t t = 0; t < 7; ++t) {
    for (int64_t d = 0; d < 8; ++d) {
      diff = std::max<double>(diff, std::fabs(out_p->hidden.at(t, d) - out->hidden.at(perm[t], d)));
    }
  }
  EXPECT_LE(diff, 1e-5);
}

TEST(TransformerStackTest, KeyPaddingMaskReachesEveryLayer) {
  const Golden g = Golden::Load("gpt2_tiny");
  Gpt2 model = LoadGpt2(g);
  model.stack.config.causal = false;
  std::mt19937_64 engine(34);
  Matrix x = RandomMatrix(6, 16, engine, 1.0f);
  StackOptions options{.keep_weights_of = {0, 1}};
  options.mask.key_padding = {0, 0, 0, 0, 1, 1};
  absl::StatusOr<StackOutput> before = RunTransformerStack(model.stack, x.view(), options);
  for (int64_t d = 0; d < 16; ++d) x.at(5, d) = 3.0f;  // a padding token changes: real tokens must not see it
  absl::StatusOr<StackOutput> after = RunTransformerStack(model.stack, x.view(), options);
  ASSERT_TRUE(before.ok() && after.ok());
  for (int64_t t = 0; t < 4; ++t) {
    for (int64_t d = 0; d < 16; ++d) EXPECT_EQ(before->hidden.at(t, d), after->hidden.at(t, d));
  }
  for (int64_t layer : {0, 1}) EXPECT_EQ(before->attention_weights.at(layer)[0].at(2, 5), 0.0f);
}

TEST(TransformerStackTest, AskingForALayerBeyondTheStackIsOutOfRange) {
  const Golden g = Golden::Load("gpt2_tiny");
  const Gpt2 model = LoadGpt2(g);
  Matrix x(3, 16);
  absl::StatusOr<StackOutput> out = RunTransformerStack(model.stack, x.view(), {.keep_weights_of = {2}});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(std::string(out.status().message()).find("layer 2"), std::string::npos) << out.status();
}

TEST(TransformerStackTest, BadBlockTensorIsInvalidArgumentNamingTheLayer) {
  const Golden g = Golden::Load("gpt2_tiny");
  Gpt2 model = LoadGpt2(g);
  model.stack.blocks[1].feed_forward.down.bias = model.stack.blocks[1].feed_forward.down.bias.subspan(0, 3);
  Matrix x(3, 16);
  absl::StatusOr<StackOutput> out = RunTransformerStack(model.stack, x.view(), {});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(out.status().message());
  EXPECT_NE(message.find("layer 1"), std::string::npos) << message;
  EXPECT_NE(message.find("feed_forward.down"), std::string::npos) << message;
}

}  // namespace
}  // namespace tokvec
