#include "attention/multi_head_attention.h"

#include <cmath>
#include <vector>

#include "attention/flash_attention.h"
#include "attention/scaled_dot_product.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// Runs the heads of already projected queries, keys and values and applies W_o.
//   q: [Tq, D] (row stride q.stride), k, v: [Tk, D] (strides k.stride, v.stride); heads are column blocks.
absl::StatusOr<MultiHeadAttentionOutput> AttendHeads(StridedView q, StridedView k, StridedView v,
                                                     const MultiHeadAttentionWeights& w, const AttentionMask& mask,
                                                     const MultiHeadAttentionOptions& options) {
  const int64_t d_model = q.cols, n_heads = w.n_heads, head_dim = d_model / n_heads;
  const int64_t q_len = q.rows, k_len = k.rows;
  const float scale = options.scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim))));
  MultiHeadAttentionOutput result;
  if (options.keep_weights) result.head_weights.assign(static_cast<size_t>(n_heads), Matrix(q_len, k_len));
  Matrix concat(q_len, d_model);  // [Tq, D]: head h writes columns [h·Dh, (h+1)·Dh)
  if (!w.kind.full()) {
    if (q_len != k_len || !mask.blocked.empty() || mask.additive.size() != 0) {
      return absl::InvalidArgumentError(fmt::format(
          "{} attention takes self-attention with causal and key-padding masks only ({} queries, {} keys{})",
          AttentionKindName(w.kind.kind), q_len, k_len,
          mask.blocked.empty() && mask.additive.size() == 0 ? "" : ", a boolean or additive mask"));
    }
    TOKVEC_ASSIGN_OR_RETURN(HeadAttention head,
                            HeadAttention::Make(w.kind, q_len, head_dim, mask.causal, scale, mask.key_padding));
    ParallelFor(n_heads, options.threads, [&](int64_t h) {
      HeadScratch scratch;
      const int64_t col = h * head_dim;
      head.Run({q.data + col, q_len, head_dim, q.stride}, {k.data + col, k_len, head_dim, k.stride},
               {v.data + col, k_len, head_dim, v.stride}, &scratch, concat.data() + col, d_model,
               options.keep_weights ? result.head_weights[static_cast<size_t>(h)].data() : nullptr);
    });
  } else if (!options.keep_weights && mask.key_padding.empty() && mask.blocked.empty() &&
             mask.additive.size() == 0 && options.relative_bias == nullptr) {
    // No weights to return and at most a causal mask (no relative position bias either): the flash kernel, as the
    // batched forward runs it, without a [Tq, Tk] score matrix per head (1 GB per head-thread at 16,384 tokens).
    ParallelFor(n_heads, options.threads, [&](int64_t h) {
      FlashScratch scratch;
      const int64_t col = h * head_dim;
      FlashAttendHead({q.data + col, q_len, head_dim, q.stride}, {k.data + col, k_len, head_dim, k.stride},
                      {v.data + col, k_len, head_dim, v.stride}, mask.causal, scale, &scratch, concat.data() + col,
                      d_model);
    });
  } else {
    ParallelFor(n_heads, options.threads, [&](int64_t h) {
      // MPNet: the head's own mask, the caller's parts plus its relative position bias as the additive part.
      AttentionMask biased;
      if (options.relative_bias != nullptr) {
        biased = mask;
        biased.additive = Matrix(q_len, k_len);
        options.relative_bias->FillHead(h, q_len, biased.additive.data());
        for (int64_t i = 0; i < mask.additive.size(); ++i) biased.additive.data()[i] += mask.additive.data()[i];
      }
      const AttentionMask& head_mask = options.relative_bias != nullptr ? biased : mask;
      std::vector<float> scratch;
      float* scores = nullptr;  // [Tq, Tk]
      if (options.keep_weights) {
        scores = result.head_weights[static_cast<size_t>(h)].data();
      } else {
        scratch.resize(static_cast<size_t>(q_len * k_len));
        scores = scratch.data();
      }
      const int64_t col = h * head_dim;
      AttendHead({q.data + col, q_len, head_dim, q.stride}, {k.data + col, k_len, head_dim, k.stride},
                 {v.data + col, k_len, head_dim, v.stride}, head_mask, scale, scores, concat.data() + col, d_model);
    });
  }
  result.output = Matrix(q_len, w.out.out_features());  // [Tq, D]
  LinearInto(concat.view(), w.out, result.output.data(), options.threads);
  return result;
}

// The caller's mask plus options.causal.
AttentionMask CombinedMask(const MultiHeadAttentionOptions& options) {
  AttentionMask mask = options.mask;
  mask.causal = mask.causal || options.causal;
  return mask;
}

// RoPE on every head of a projected [T, D] block (row stride `stride`).
void RotateHeads(const MultiHeadAttentionOptions& options, int64_t n_heads, int64_t rows, int64_t d_model,
                 float* data, int64_t stride) {
  const int64_t head_dim = d_model / n_heads;
  for (int64_t h = 0; h < n_heads; ++h) {
    ApplyRotaryToHead(*options.rotary, rows, head_dim, options.first_position, data + h * head_dim, stride);
  }
}

absl::Status ValidateRotary(const MultiHeadAttentionOptions& options, int64_t d_model, int64_t n_heads) {
  if (options.rotary && (d_model / n_heads) % 2 != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "rotary positions need an even head_dim; d_model {} / n_heads {} = {}", d_model, n_heads,
        d_model / n_heads));
  }
  if (options.relative_bias != nullptr && options.relative_bias->n_heads != n_heads) {
    return absl::InvalidArgumentError(fmt::format("relative position bias has {} heads; the attention has {}",
                                                  options.relative_bias->n_heads, n_heads));
  }
  if (options.first_position < 0) {
    return absl::OutOfRangeError(fmt::format("first position {} is negative", options.first_position));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateMultiHeadAttention(const MultiHeadAttentionWeights& w, int64_t d_model, int64_t kv_width) {
  if (w.n_heads <= 0 || d_model % w.n_heads != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "d_model {} is not divisible by n_heads {}; choose n_heads dividing d_model", d_model, w.n_heads));
  }
  if (w.fused()) {
    if (kv_width != d_model) {
      return absl::InvalidArgumentError(fmt::format(
          "a fused qkv projection needs keys/values of width d_model {}, got {}; use separate q, k, v weights",
          d_model, kv_width));
    }
    if (absl::Status s = ValidateLinear(w.qkv, d_model, 3 * d_model, "attention qkv"); !s.ok()) return s;
  } else {
    if (absl::Status s = ValidateLinear(w.q, d_model, d_model, "attention q"); !s.ok()) return s;
    if (absl::Status s = ValidateLinear(w.k, kv_width, d_model, "attention k"); !s.ok()) return s;
    if (absl::Status s = ValidateLinear(w.v, kv_width, d_model, "attention v"); !s.ok()) return s;
  }
  return ValidateLinear(w.out, d_model, d_model, "attention out");
}

absl::StatusOr<MultiHeadAttentionOutput> SelfAttention(MatrixView x, const MultiHeadAttentionWeights& w,
                                                       const MultiHeadAttentionOptions& options) {
  const int64_t d_model = x.cols, seq_len = x.rows;
  if (absl::Status s = ValidateMultiHeadAttention(w, d_model, d_model); !s.ok()) return s;
  if (absl::Status s = ValidateRotary(options, d_model, w.n_heads); !s.ok()) return s;
  const AttentionMask mask = CombinedMask(options);
  if (absl::Status s = ValidateMask(mask, seq_len, seq_len); !s.ok()) return s;
  if (options.relative_bias != nullptr && (seq_len > options.relative_bias->max_len || !w.kind.full())) {
    return absl::InvalidArgumentError(fmt::format(
        "a relative position bias takes full attention of at most {} tokens ({} tokens, {} attention)",
        options.relative_bias->max_len, seq_len, AttentionKindName(w.kind.kind)));
  }

  if (w.fused()) {
    Matrix qkv(seq_len, 3 * d_model);  // [T, 3D] = [q | k | v]
    LinearInto(x, w.qkv, qkv.data(), options.threads);
    if (options.rotary) {
      RotateHeads(options, w.n_heads, seq_len, d_model, qkv.data(), 3 * d_model);            // q
      RotateHeads(options, w.n_heads, seq_len, d_model, qkv.data() + d_model, 3 * d_model);  // k
    }
    const int64_t stride = 3 * d_model;
    return AttendHeads({qkv.data(), seq_len, d_model, stride}, {qkv.data() + d_model, seq_len, d_model, stride},
                       {qkv.data() + 2 * d_model, seq_len, d_model, stride}, w, mask, options);
  }
  Matrix q(seq_len, d_model), k(seq_len, d_model), v(seq_len, d_model);  // [T, D] each
  LinearInto(x, w.q, q.data(), options.threads);
  LinearInto(x, w.k, k.data(), options.threads);
  LinearInto(x, w.v, v.data(), options.threads);
  if (options.rotary) {
    RotateHeads(options, w.n_heads, seq_len, d_model, q.data(), d_model);
    RotateHeads(options, w.n_heads, seq_len, d_model, k.data(), d_model);
  }
  return AttendHeads({q.data(), seq_len, d_model, d_model}, {k.data(), seq_len, d_model, d_model},
                     {v.data(), seq_len, d_model, d_model}, w, mask, options);
}

absl::StatusOr<MultiHeadAttentionOutput> CrossAttention(MatrixView x, MatrixView memory,
                                                        const MultiHeadAttentionWeights& w,
                                                        const MultiHeadAttentionOptions& options) {
  const int64_t d_model = x.cols, q_len = x.rows, k_len = memory.rows;
  if (absl::Status s = ValidateMultiHeadAttention(w, d_model, memory.cols); !s.ok()) return s;
  if (absl::Status s = ValidateRotary(options, d_model, w.n_heads); !s.ok()) return s;
  const AttentionMask mask = CombinedMask(options);
  if (absl::Status s = ValidateMask(mask, q_len, k_len); !s.ok()) return s;
  if (options.relative_bias != nullptr) {
    return absl::InvalidArgumentError("a relative position bias takes self-attention only, not cross-attention");
  }

  Matrix q(q_len, d_model);  // [Tq, D]
  LinearInto(x, w.fused() ? SliceOutputs(w.qkv, 0, d_model) : w.q, q.data(), options.threads);
  if (w.fused()) {
    Matrix kv(k_len, 2 * d_model);  // [Tk, 2D] = [k | v]
    LinearInto(memory, SliceOutputs(w.qkv, d_model, 2 * d_model), kv.data(), options.threads);
    if (options.rotary) {
      RotateHeads(options, w.n_heads, q_len, d_model, q.data(), d_model);
      RotateHeads(options, w.n_heads, k_len, d_model, kv.data(), 2 * d_model);
    }
    return AttendHeads({q.data(), q_len, d_model, d_model}, {kv.data(), k_len, d_model, 2 * d_model},
                       {kv.data() + d_model, k_len, d_model, 2 * d_model}, w, mask, options);
  }
  Matrix k(k_len, d_model), v(k_len, d_model);  // [Tk, D] each
  LinearInto(memory, w.k, k.data(), options.threads);
  LinearInto(memory, w.v, v.data(), options.threads);
  if (options.rotary) {
    RotateHeads(options, w.n_heads, q_len, d_model, q.data(), d_model);
    RotateHeads(options, w.n_heads, k_len, d_model, k.data(), d_model);
  }
  return AttendHeads({q.data(), q_len, d_model, d_model}, {k.data(), k_len, d_model, d_model},
                     {v.data(), k_len, d_model, d_model}, w, mask, options);
}

}  // namespace tokvec
