// A transformer block and a stack of them (Vaswani et al. 2017, §3.1; pre-LN: Xiong et al. 2020,
// https://arxiv.org/abs/2002.04745, as in GPT-2).
//
//   post-LN (original Transformer, BERT):  x = LN1(x + MHA(x));  x = LN2(x + FFN(x))
//   pre-LN  (GPT-2):                        x = x + MHA(LN1(x));  x = x + FFN(LN2(x))
//   FFN(x) = act(x·W_1 + b_1)·W_2 + b_2     (position-wise, width F)
//
//   TransformerStack stack{.blocks = blocks, .final_norm = ln_f,
//                          .config = {.n_heads = 12, .norm = NormPlacement::kPreLN,
//                                     .activation = Activation::kGeluTanh, .causal = true}};
//   TOKVEC_ASSIGN_OR_RETURN(StackOutput out, RunTransformerStack(stack, x.view(), {.threads = 2,
//                                                                                   .keep_weights_of = {0}}));
//   // out.hidden: [T, D]; out.attention_weights.at(0)[h]: [T, T] for every head h of layer 0
//
// PyTorch: nn.TransformerEncoderLayer(d, h, f, dropout=0, activation=..., norm_first=..., batch_first=True).
#ifndef TOKVEC_MODELS_TRANSFORMER_BLOCK_H_
#define TOKVEC_MODELS_TRANSFORMER_BLOCK_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/mask.h"
#include "attention/multi_head_attention.h"
#include "embeddings/positional.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace tokvec {

enum class NormPlacement {
  kPreLN,   // LayerNorm before each sublayer, inside the residual branch (GPT-2).
  kPostLN,  // LayerNorm after each residual addition (original Transformer, BERT).
};

struct FeedForwardWeights {
  LinearWeights up;    // W_1: D -> F (GPT-2 mlp.c_fc, torch linear1); gated: D -> 2F
  LinearWeights down;  // W_2: F -> D (GPT-2 mlp.c_proj, torch linear2)
  // GeGLU (Shazeer 2020; ModernBERT's mlp.Wi): up's output is [input | gate], F columns each, and W_2 gets
  // act(input) * gate.
  bool gated = false;
};

struct TransformerBlockWeights {
  MultiHeadAttentionWeights attention;
  LayerNormWeights attention_norm;  // LN1: GPT-2 ln_1, torch norm1
  FeedForwardWeights feed_forward;
  LayerNormWeights feed_forward_norm;  // LN2: GPT-2 ln_2, torch norm2
  // Per-layer settings over BlockConfig's (ModernBERT: layer 0 has no attn_norm; local layers their own RoPE base).
  bool skip_attention_norm = false;    // pre-LN only: the attention reads x itself (LN1 unused)
  std::optional<RotaryOptions> rotary;  // replaces BlockConfig::rotary for this layer
};

struct BlockConfig {
  int64_t n_heads = 1;
  NormPlacement norm = NormPlacement::kPreLN;
  Activation activation = Activation::kGeluTanh;
  bool causal = false;
  std::optional<RotaryOptions> rotary;
  std::optional<float> attention_scale;  // default 1/√head_dim (GPT-Neo: 1)
  // MPNet: a per-head bias of the key-query offset added to every layer's scaled scores (relative_position_bias.h);
  // null for every other architecture.
  std::shared_ptr<const RelativePositionBias> relative_bias;
};

// The RoPE a block applies: its own, else the config's.
inline const std::optional<RotaryOptions>& BlockRotary(const TransformerBlockWeights& w, const BlockConfig& config) {
  return w.rotary ? w.rotary : config.rotary;
}

// The score scale of a block's heads: config.attention_scale, else 1/√head_dim.
float AttentionScale(const BlockConfig& config, int64_t head_dim);

// InvalidArgument naming the block's offending tensor (e.g. "layer 3 feed_forward.down") and its shapes.
absl::Status ValidateTransformerBlock(const TransformerBlockWeights& w, const BlockConfig& config,
                                      int64_t d_model, std::string_view name);

struct BlockOptions {
  int threads = 1;
  AttentionMask mask;          // extra mask (e.g. key padding), combined with config.causal
  int64_t first_position = 0;  // for RoPE
  bool keep_weights = false;
};

struct BlockOutput {
  Matrix hidden;                     // [T, D]
  std::vector<Matrix> head_weights;  // [H] x [T, T] when keep_weights
};

// One block on x: [T, D].
absl::StatusOr<BlockOutput> RunTransformerBlock(const TransformerBlockWeights& w, const BlockConfig& config,
                                                MatrixView x, const BlockOptions& options);

struct TransformerStack {
  std::vector<TransformerBlockWeights> blocks;  // [L]
  std::optional<LayerNormWeights> final_norm;   // GPT-2 ln_f; none for the original encoder
  BlockConfig config;
};

struct StackOptions {
  int threads = 1;
  AttentionMask mask;                   // e.g. key padding, applied in every layer
  int64_t first_position = 0;
  std::vector<int64_t> keep_weights_of;  // layers whose attention weights to return (all heads)
};

struct StackOutput {
  Matrix hidden;                                            // [T, D], after the final norm if any
  std::map<int64_t, std::vector<Matrix>> attention_weights;  // layer -> [H] x [T, T]
};

// Runs every block in order, then the final LayerNorm. A requested layer >= L is OutOfRange naming it.
absl::StatusOr<StackOutput> RunTransformerStack(const TransformerStack& stack, MatrixView x,
                                                const StackOptions& options);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_TRANSFORMER_BLOCK_H_
