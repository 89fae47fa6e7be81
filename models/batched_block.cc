#include "models/batched_block.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "attention/flash_attention.h"
#include "attention/kind_attention.h"
#include "attention/scaled_dot_product.h"
#include "embeddings/positional.h"
#include "fmt/format.h"
#include "kernels/layer_norm_rows.h"
#include "kernels/tiled_linear.h"

namespace tokvec {
namespace {

// Rows per LayerNorm task: fixed, so results do not depend on the thread count.
constexpr int64_t kRowBlock = 64;

// y = LN(x), rows split over threads.   x, y: [N, D]
void LayerNormRows(const float* x, int64_t rows, int64_t d_model, const LayerNormWeights& w, float* y,
                   WorkerPool& pool) {
  pool.Run((rows + kRowBlock - 1) / kRowBlock, [&](int64_t block) {
    const int64_t row0 = block * kRowBlock, n = std::min(kRowBlock, rows - row0);
    LayerNormRowsInto({x + row0 * d_model, n, d_model}, w, y + row0 * d_model);
  });
}

// The sequences stacked in a block's input: sequence i in rows [start[i], start[i] + length[i]).
struct Segments {
  std::span<const int64_t> length;
  std::vector<int64_t> start;
};

// Multi-head self-attention of every sequence: x [N, D] -> [N, D] (before W_o is applied: `concat`).
// `kinds`: the layer's attention by sequence length when it is not full (else empty: FlashAttendHead).
void AttendBatch(MatrixView x, const MultiHeadAttentionWeights& w, const BlockConfig& config,
                 const std::optional<RotaryOptions>& rotary, const Segments& segments, const std::map<int64_t, HeadAttention>& kinds, WorkerPool& pool,
                 float* qkv_buffer, float* concat) {
  const int64_t d_model = x.cols;
  const int64_t n_heads = config.n_heads, head_dim = d_model / n_heads;
  float* qkv = qkv_buffer;  // [N, 3D] = [q | k | v]
  const int64_t stride = 3 * d_model;
  const LinearEpilogue plain{.segment_lengths = segments.length};
  if (w.fused()) {
    TiledLinearInto(x, w.qkv, qkv, pool, plain);
  } else {
    // Separate projections written side by side, straight into three column slices of the same [N, 3D] buffer.
    const LinearWeights* projections[3] = {&w.q, &w.k, &w.v};
    for (int64_t p = 0; p < 3; ++p) {
      TiledLinearInto(x, *projections[p], qkv + p * d_model, pool,
                      {.segment_lengths = segments.length, .y_stride = stride});
    }
  }
  const float scale = AttentionScale(config, head_dim);
  const int64_t count = static_cast<int64_t>(segments.length.size());
  pool.Run(count * n_heads, [&](int64_t task) {
    const int64_t b = task / n_heads, h = task % n_heads;
    const int64_t row0 = segments.start[b], seq_len = segments.length[b];
    if (seq_len == 0) return;
    float* base = qkv + row0 * stride + h * head_dim;
    float* out = concat + row0 * d_model + h * head_dim;
    // One scratch per (kept) thread: a fresh one per task zero-filled its 256 KB score block 96 times a layer.
    // It lives as long as the thread (the pool's workers, or the caller: 256 KB plus 2·T·head_dim floats).
    thread_local FlashScratch scratch;
    if (rotary) {  // this task's head only: positions 0.. of each sequence
      ApplyRotaryToHead(*rotary, seq_len, head_dim, 0, base, stride);            // q
      ApplyRotaryToHead(*rotary, seq_len, head_dim, 0, base + d_model, stride);  // k
    }
    if (config.relative_bias) {
      // MPNet: the head's [T, T] relative position bias as an additive mask, through the plain kernel (the flash
      // kernel takes no per-score bias). Scratch per thread, grown to the longest sequence seen.
      thread_local AttentionMask bias_mask;
      thread_local std::vector<float> bias_scores;
      if (bias_mask.additive.rows() != seq_len) bias_mask.additive = Matrix(seq_len, seq_len);
      bias_scores.resize(static_cast<size_t>(seq_len * seq_len));
      config.relative_bias->FillHead(h, seq_len, bias_mask.additive.data());
      AttendHead({base, seq_len, head_dim, stride}, {base + d_model, seq_len, head_dim, stride},
                 {base + 2 * d_model, seq_len, head_dim, stride}, bias_mask, scale, bias_scores.data(), out, d_model);
      return;
    }
    if (!kinds.empty()) {
      thread_local HeadScratch kind_scratch;
      kinds.at(seq_len).Run({base, seq_len, head_dim, stride}, {base + d_model, seq_len, head_dim, stride},
                            {base + 2 * d_model, seq_len, head_dim, stride}, &kind_scratch, out, d_model);
      return;
    }
    FlashAttendHead({base, seq_len, head_dim, stride}, {base + d_model, seq_len, head_dim, stride},
                    {base + 2 * d_model, seq_len, head_dim, stride}, config.causal, scale, &scratch, out, d_model);
  });
}

}  // namespace

absl::Status RunTransformerBlockBatchedInto(const TransformerBlockWeights& w, const BlockConfig& config,
                                            MatrixView x, int64_t batch, int threads,
                                            BatchedBlockWorkspace* workspace, float* y) {
  if (batch <= 0 || x.rows % batch != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "batched block input has {} rows, not a multiple of the batch size {}; pass [B·T, D] with equal-length "
        "sequences",
        x.rows, batch));
  }
  const std::vector<int64_t> lengths(static_cast<size_t>(batch), x.rows / batch);
  return RunTransformerBlockRaggedInto(w, config, x, lengths, threads, workspace, y);
}

absl::Status RunTransformerBlockRaggedInto(const TransformerBlockWeights& w, const BlockConfig& config,
                                           MatrixView x, std::span<const int64_t> lengths, int threads,
                                           BatchedBlockWorkspace* workspace, float* y) {
  if (absl::Status s = ValidateTransformerBlock(w, config, x.cols, "transformer block"); !s.ok()) return s;
  Segments segments{.length = lengths, .start = {}};
  int64_t total = 0;
  for (int64_t length : lengths) {
    if (length < 0) return absl::InvalidArgumentError(fmt::format("sequence length {} is negative", length));
    segments.start.push_back(total);
    total += length;
  }
  if (lengths.empty() || total != x.rows) {
    return absl::InvalidArgumentError(fmt::format(
        "batched block input has {} rows; its {} sequence lengths add up to {}", x.rows, lengths.size(), total));
  }
  if (config.relative_bias) {
    for (int64_t length : lengths) {
      if (length > config.relative_bias->max_len) {
        return absl::OutOfRangeError(fmt::format("sequence of {} tokens; the relative position bias covers {}",
                                                 length, config.relative_bias->max_len));
      }
    }
  }
  const int64_t rows = x.rows, d_model = x.cols;
  const int64_t ff = w.feed_forward.up.out_features();
  // Every kind but full: its tensors and limits checked once per call and sequence length.
  std::map<int64_t, HeadAttention> kinds;
  if (!w.attention.kind.full()) {
    const int64_t head_dim = d_model / config.n_heads;
    for (int64_t length : lengths) {
      if (kinds.count(length) != 0) continue;
      absl::StatusOr<HeadAttention> made =
          HeadAttention::Make(w.attention.kind, length, head_dim, config.causal, AttentionScale(config, head_dim));
      if (!made.ok()) return made.status();
      kinds.emplace(length, std::move(*made));
    }
  }
  BatchedBlockWorkspace local;
  BatchedBlockWorkspace& ws = workspace != nullptr ? *workspace : local;
  // Every element of each buffer is written before it is read, so they are reused without refilling.
  float* qkv = ws.qkv.Reserve(rows * 3 * d_model);    // [N, 3D]
  float* concat = ws.concat.Reserve(rows * d_model);  // [N, D] heads side by side
  float* hidden = ws.hidden.Reserve(rows * ff);       // [N, F]
  float* h = ws.h.Reserve(rows * d_model);            // [N, D]
  if (ws.pool == nullptr || ws.pool->threads() != std::max(threads, 1)) {
    ws.pool = std::make_unique<WorkerPool>(threads);
  }
  WorkerPool& pool = *ws.pool;
  // Residuals and LayerNorms run in the epilogue of the projection before them (tiled_linear.h).
  if (config.norm == NormPlacement::kPostLN) {
    if (w.feed_forward.gated || w.skip_attention_norm) {
      return absl::InvalidArgumentError("a post-LN batched block runs the plain feed-forward with both norms only");
    }
    // h = LN1(x + MHA(x)); y = LN2(h + FFN(h))
    AttendBatch(x, w.attention, config, BlockRotary(w, config), segments, kinds, pool, qkv, concat);
    TiledLinearInto({concat, rows, d_model}, w.attention.out, h, pool,
                    {.residual = x.data, .norm = &w.attention_norm, .segment_lengths = lengths});
    TiledLinearInto({h, rows, d_model}, w.feed_forward.up, hidden, pool,
                    {.activation = config.activation, .segment_lengths = lengths});
    TiledLinearInto({hidden, rows, ff}, w.feed_forward.down, y, pool,
                    {.residual = h, .norm = &w.feed_forward_norm, .segment_lengths = lengths});
    return absl::OkStatus();
  }
  // pre-LN: y = x + MHA(LN1(x)); y = y + FFN(LN2(y))
  float* normed = h;  // [N, D]
  if (w.skip_attention_norm) {
    std::copy_n(x.data, rows * d_model, normed);
  } else {
    LayerNormRows(x.data, rows, d_model, w.attention_norm, normed, pool);
  }
  AttendBatch({normed, rows, d_model}, w.attention, config, BlockRotary(w, config), segments, kinds, pool, qkv,
              concat);
  TiledLinearInto({concat, rows, d_model}, w.attention.out, y, pool,
                  {.residual = x.data, .segment_lengths = lengths});
  LayerNormRows(y, rows, d_model, w.feed_forward_norm, normed, pool);
  if (w.feed_forward.gated) {  // GeGLU: [input | gate] rows, then act(input) · gate into `gated`
    TiledLinearInto({normed, rows, d_model}, w.feed_forward.up, hidden, pool, {.segment_lengths = lengths});
    float* gated = ws.gated.Reserve(rows * (ff / 2));  // [N, F]
    GatedActivationInto(config.activation, hidden, rows, ff / 2, gated, threads);
    TiledLinearInto({gated, rows, ff / 2}, w.feed_forward.down, y, pool, {.residual = y, .segment_lengths = lengths});
    return absl::OkStatus();
  }
  TiledLinearInto({normed, rows, d_model}, w.feed_forward.up, hidden, pool,
                  {.activation = config.activation, .segment_lengths = lengths});
  TiledLinearInto({hidden, rows, ff}, w.feed_forward.down, y, pool, {.residual = y, .segment_lengths = lengths});
  return absl::OkStatus();
}

absl::StatusOr<Matrix> RunTransformerBlockBatched(const TransformerBlockWeights& w, const BlockConfig& config,
                                                  MatrixView x, int64_t batch, int threads,
                                                  BatchedBlockWorkspace* workspace) {
  Matrix y(x.rows, x.cols);  // [N, D]
  if (absl::Status s = RunTransformerBlockBatchedInto(w, config, x, batch, threads, workspace, y.data()); !s.ok()) {
    return s;
  }
  return y;
}

}  // namespace tokvec
