#include "attention/batched_block.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "attention/flash_attention.h"
#include "attention/tiled_linear.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// Rows per LayerNorm / residual task: fixed, so results do not depend on the thread count.
constexpr int64_t kRowBlock = 64;

// y = LN(a + b) (b may be null: y = LN(a)), rows split over threads.   a, b, y: [N, D]
void AddLayerNorm(const float* a, const float* b, int64_t rows, int64_t d_model, const LayerNormWeights& w,
                  float* sum_scratch, float* y, int threads) {
  const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
  ParallelFor(blocks, threads, [&](int64_t block) {
    const int64_t row0 = block * kRowBlock, n = std::min(kRowBlock, rows - row0);
    const float* src = a + row0 * d_model;
    if (b != nullptr) {
      float* sum = sum_scratch + row0 * d_model;  // [n, D]
      for (int64_t i = 0; i < n * d_model; ++i) sum[i] = a[row0 * d_model + i] + b[row0 * d_model + i];
      src = sum;
    }
    LayerNormInto({src, n, d_model}, w, y + row0 * d_model);
  });
}

// x += delta, rows split over threads.   [N, D]
void AddInto(const float* delta, int64_t size, float* x, int threads) {
  const int64_t chunk = kRowBlock * 1024;
  ParallelFor((size + chunk - 1) / chunk, threads, [&](int64_t block) {
    const int64_t end = std::min(size, (block + 1) * chunk);
    for (int64_t i = block * chunk; i < end; ++i) x[i] += delta[i];
  });
}

// Multi-head self-attention of every sequence: x [N, D] -> [N, D] (before W_o is applied: `concat`).
void AttendBatch(MatrixView x, const MultiHeadAttentionWeights& w, const BlockConfig& config, int64_t batch,
                 int threads, float* qkv_buffer, float* concat) {
  const int64_t rows = x.rows, d_model = x.cols, seq_len = rows / batch;
  const int64_t n_heads = config.n_heads, head_dim = d_model / n_heads;
  float* qkv = qkv_buffer;  // [N, 3D] = [q | k | v]
  const int64_t stride = 3 * d_model;
  if (w.fused()) {
    TiledLinearInto(x, w.qkv, qkv, threads);
  } else {
    // Separate projections written side by side: three column slices of the same [N, 3D] buffer.
    Matrix part(rows, d_model);  // [N, D]
    const LinearWeights* projections[3] = {&w.q, &w.k, &w.v};
    for (int64_t p = 0; p < 3; ++p) {
      TiledLinearInto(x, *projections[p], part.data(), threads);
      for (int64_t r = 0; r < rows; ++r) std::copy_n(part.row(r), d_model, qkv + r * stride + p * d_model);
    }
  }
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  ParallelFor(batch * n_heads, threads, [&](int64_t task) {
    const int64_t b = task / n_heads, h = task % n_heads;
    const float* base = qkv + b * seq_len * stride + h * head_dim;
    FlashScratch scratch;
    FlashAttendHead({base, seq_len, head_dim, stride}, {base + d_model, seq_len, head_dim, stride},
                    {base + 2 * d_model, seq_len, head_dim, stride}, config.causal, scale, &scratch,
                    concat + b * seq_len * d_model + h * head_dim, d_model);
  });
}

}  // namespace

absl::StatusOr<Matrix> RunTransformerBlockBatched(const TransformerBlockWeights& w, const BlockConfig& config,
                                                  MatrixView x, int64_t batch, int threads,
                                                  BatchedBlockWorkspace* workspace) {
  if (absl::Status s = ValidateTransformerBlock(w, config, x.cols, "transformer block"); !s.ok()) return s;
  if (batch <= 0 || x.rows % batch != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "batched block input has {} rows, not a multiple of the batch size {}; pass [B·T, D] with equal-length "
        "sequences",
        x.rows, batch));
  }
  if (config.rotary) {
    return absl::InvalidArgumentError(
        "the batched block does not apply rotary positions; run RunTransformerBlock per sequence instead");
  }
  const int64_t rows = x.rows, d_model = x.cols;
  const int64_t ff = w.feed_forward.up.out_features();
  BatchedBlockWorkspace local;
  BatchedBlockWorkspace& ws = workspace != nullptr ? *workspace : local;
  // Every element of each buffer is written before it is read; resize keeps old memory without refilling it.
  auto buffer = [](std::vector<float>& v, int64_t size) {
    if (static_cast<int64_t>(v.size()) < size) v.resize(static_cast<size_t>(size));
    return v.data();
  };
  float* qkv = buffer(ws.qkv, rows * 3 * d_model);      // [N, 3D]
  float* concat = buffer(ws.concat, rows * d_model);     // [N, D] heads side by side
  float* attended = buffer(ws.attended, rows * d_model);  // [N, D] after W_o, then FFN output
  float* hidden = buffer(ws.hidden, rows * ff);          // [N, F]
  float* h = buffer(ws.h, rows * d_model);               // [N, D]
  float* scratch = buffer(ws.scratch, rows * d_model);    // [N, D]
  Matrix out(rows, d_model);  // [N, D]
  if (config.norm == NormPlacement::kPostLN) {
    // h = LN1(x + MHA(x)); out = LN2(h + FFN(h))
    AttendBatch(x, w.attention, config, batch, threads, qkv, concat);
    TiledLinearInto({concat, rows, d_model}, w.attention.out, attended, threads);
    AddLayerNorm(x.data, attended, rows, d_model, w.attention_norm, scratch, h, threads);
    TiledLinearInto({h, rows, d_model}, w.feed_forward.up, hidden, threads, config.activation);
    TiledLinearInto({hidden, rows, ff}, w.feed_forward.down, attended, threads);  // FFN(h)
    AddLayerNorm(h, attended, rows, d_model, w.feed_forward_norm, scratch, out.data(), threads);
    return out;
  }
  // pre-LN: h = x + MHA(LN1(x)); out = h + FFN(LN2(h))
  float* normed = scratch;  // [N, D]
  AddLayerNorm(x.data, nullptr, rows, d_model, w.attention_norm, nullptr, normed, threads);
  AttendBatch({normed, rows, d_model}, w.attention, config, batch, threads, qkv, concat);
  TiledLinearInto({concat, rows, d_model}, w.attention.out, out.data(), threads);
  AddInto(x.data, rows * d_model, out.data(), threads);
  AddLayerNorm(out.data(), nullptr, rows, d_model, w.feed_forward_norm, nullptr, normed, threads);
  TiledLinearInto({normed, rows, d_model}, w.feed_forward.up, hidden, threads, config.activation);
  TiledLinearInto({hidden, rows, ff}, w.feed_forward.down, attended, threads);
  AddInto(attended, rows * d_model, out.data(), threads);
  return out;
}

}  // namespace tokvec
