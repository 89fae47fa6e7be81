// The decoder stack of LLaMA (Touvron et al. 2023, https://arxiv.org/abs/2302.13971), Qwen2 and Qwen3: pre-norm
// blocks with RMSNorm, rotary positions, grouped-query attention and a SwiGLU feed-forward (Shazeer 2020).
//
//   per block:  h = RMSNorm(x);  q, k, v = h·Wqᵀ (+bq), h·Wkᵀ (+bk), h·Wvᵀ (+bv)     heads of head_dim each
//               (Qwen3) q, k = RMSNorm over each head's head_dim (q_norm, k_norm)
//               q, k rotated by RoPE, pairs (i, i + head_dim/2) ("rotate half"), base rope_theta
//               query head h attends with key/value head h / (n_heads / n_kv_heads), causal, 1/√head_dim
//               x = x + concat(heads)·Woᵀ (+bo)
//               h = RMSNorm(x);  x = x + (silu(h·Wgateᵀ) ⊙ h·Wupᵀ)·Wdownᵀ
//   after the last block: x = RMSNorm(x)
//
//   DecoderStack stack{.layers = layers, .final_norm = norm,
//                      .config = {.n_heads = 16, .n_kv_heads = 8, .head_dim = 128, .rope_theta = 1e6f}};
//   TOKVEC_ASSIGN_OR_RETURN(DecoderOutput out, RunDecoderStack(stack, x.view(), {.threads = 2}));
//   // out.hidden: [T, D]
//
// The projections are tiled GEMMs (tiled_linear.h) with the residual added in their epilogue; attention is the
// flash kernel (flash_attention.h) per query head, reading its shared key/value head in place (no copies). A
// batch of equal-length sequences ([B·T, D], options.seq_len = T) runs as one set of GEMMs; each sequence gets
// the same bits as alone. Kept attention weights (keep_weights_of) come from the reference kernel
// (scaled_dot_product.h) for those layers.
#ifndef TOKVEC_MODELS_DECODER_BLOCK_H_
#define TOKVEC_MODELS_DECODER_BLOCK_H_

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/ops.h"
#include "kernels/rms_norm.h"
#include "kernels/tensor.h"

namespace tokvec {

struct DecoderConfig {
  int64_t n_heads = 1;     // query heads H
  int64_t n_kv_heads = 1;  // key/value heads; divides n_heads
  int64_t head_dim = 2;    // Dh, even
  double rope_theta = 10000.0;
};

struct DecoderLayerWeights {
  RmsNormWeights attention_norm;                // input_layernorm
  LinearWeights q, k, v, o;                     // nn.Linear [out, in]; q: D -> H·Dh, k, v: D -> Hkv·Dh, o: H·Dh -> D
  std::optional<RmsNormWeights> q_norm, k_norm;  // Qwen3: [Dh], per head
  RmsNormWeights feed_forward_norm;             // post_attention_layernorm
  LinearWeights gate, up, down;                 // D -> F, D -> F, F -> D
};

struct DecoderStack {
  std::vector<DecoderLayerWeights> layers;  // [L]
  RmsNormWeights final_norm;                // norm
  DecoderConfig config;
};

// InvalidArgument naming the layer and tensor when a shape does not follow from d_model and the config.
absl::Status ValidateDecoderStack(const DecoderStack& stack, int64_t d_model);

struct DecoderRunOptions {
  int threads = 1;
  int64_t seq_len = 0;                   // rows per sequence (x holds a batch of equal-length ones); 0: x.rows
  std::vector<int64_t> keep_weights_of;  // layers whose attention weights to return (one sequence only)
};

struct DecoderOutput {
  Matrix hidden;                                            // [rows, D]
  std::map<int64_t, std::vector<Matrix>> attention_weights;  // layer -> [H] x [T, T]
};

// x: [B·T, D] token embeddings (positions 0..T-1 in each sequence). Validates the stack first.
absl::StatusOr<DecoderOutput> RunDecoderStack(const DecoderStack& stack, MatrixView x,
                                              const DecoderRunOptions& options);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_DECODER_BLOCK_H_
