// Multi-head attention (Vaswani et al. 2017, §3.2.2): project the input to queries, keys and values, split
// them into n_heads heads of head_dim = d_model / n_heads, attend per head, concatenate, project with W_o.
//
//   MultiHead(x, m) = Concat(head_1, ..., head_H) · W_o,  head_h = Attention(x·W_q^h, m·W_k^h, m·W_v^h)
//
// Self-attention: m = x. Cross-attention (encoder–decoder): queries from x, keys and values from `memory`.
//
//   MultiHeadAttentionWeights w;
//   w.qkv = {.weight = c_attn_w, .bias = c_attn_b, .layout = WeightLayout::kInOut};   // fused [D, 3D], GPT-2
//   w.out = {.weight = c_proj_w, .bias = c_proj_b, .layout = WeightLayout::kInOut};   // [D, D]
//   w.n_heads = 12;
//   MultiHeadAttentionOptions options{.causal = true, .threads = 2, .keep_weights = true};
//   TOKVEC_ASSIGN_OR_RETURN(MultiHeadAttentionOutput y, SelfAttention(x.view(), w, options));
//   // y.output: [T, D]; y.head_weights[h]: [T, T]
//
// PyTorch: nn.MultiheadAttention's in_proj_weight [3D, D] is the same fused projection with kOutIn layout.
// Heads run in parallel over `threads`; each head's arithmetic is the same whatever the thread count.
#ifndef TOKVEC_ATTENTION_MULTI_HEAD_ATTENTION_H_
#define TOKVEC_ATTENTION_MULTI_HEAD_ATTENTION_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/kind_attention.h"
#include "attention/mask.h"
#include "attention/relative_position_bias.h"
#include "embeddings/positional.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace tokvec {

struct MultiHeadAttentionWeights {
  // Either the fused projection (outputs [q | k | v], 3·D of them) or the three separate ones.
  LinearWeights qkv;      // [D, 3D] (kInOut) or [3D, D] (kOutIn)
  LinearWeights q, k, v;  // each D -> D (k and v: memory width -> D for cross-attention)
  LinearWeights out;      // W_o, D -> D
  int64_t n_heads = 1;
  // Which attention the heads compute (kind_attention.h); full by default. Other kinds need self-attention and
  // accept only the causal and key-padding parts of a mask.
  AttentionKindWeights kind;

  bool fused() const { return !qkv.empty(); }
};

// InvalidArgument unless the projections fit d_model (and kv_width, the memory's width, for cross-attention)
// and d_model is divisible by n_heads; the message names the offending projection and shapes.
absl::Status ValidateMultiHeadAttention(const MultiHeadAttentionWeights& w, int64_t d_model, int64_t kv_width);

struct MultiHeadAttentionOptions {
  bool causal = false;                  // added to `mask` (self-attention: a decoder)
  AttentionMask mask;                   // key padding / boolean / additive masks, [Tq, Tk]
  std::optional<RotaryOptions> rotary;  // RoPE on each head's queries and keys
  int64_t first_position = 0;           // position of row 0 (for RoPE)
  int threads = 1;
  // Fill MultiHeadAttentionOutput::head_weights. Without it, full attention with at most a causal mask runs the
  // flash kernel (flash_attention.h): no [Tq, Tk] score matrix per head.
  bool keep_weights = false;
  std::optional<float> scale;           // default 1/√head_dim
  // MPNet: head h's scores get relative_bias's [T, T] block added after scaling (self-attention of at most
  // max_len tokens, full attention, relative_bias->n_heads == n_heads; else InvalidArgument). Not owned.
  const RelativePositionBias* relative_bias = nullptr;
};

struct MultiHeadAttentionOutput {
  Matrix output;                     // [Tq, D]
  std::vector<Matrix> head_weights;  // [H] x [Tq, Tk] when keep_weights, else empty
};

// x: [T, D] attends to itself.
absl::StatusOr<MultiHeadAttentionOutput> SelfAttention(MatrixView x, const MultiHeadAttentionWeights& w,
                                                       const MultiHeadAttentionOptions& options);

// x: [Tq, D] queries; memory: [Tk, Dm] keys and values.
absl::StatusOr<MultiHeadAttentionOutput> CrossAttention(MatrixView x, MatrixView memory,
                                                        const MultiHeadAttentionWeights& w,
                                                        const MultiHeadAttentionOptions& options);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_MULTI_HEAD_ATTENTION_H_
