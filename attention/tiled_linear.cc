#include "attention/tiled_linear.h"

#include <cblas.h>

#include <algorithm>
#include <functional>
#include <span>

#include "attention/layer_norm_rows.h"

namespace tokvec {
namespace {

// Size of the blocks that split `total` into ceil(total / limit) near-equal parts, rounded up to a multiple of
// `align` (at most total).
int64_t BlockSize(int64_t total, int64_t limit, int64_t align) {
  const int64_t blocks = (total + limit - 1) / limit;
  const int64_t size = (total + blocks - 1) / blocks;
  return std::min(total, (size + align - 1) / align * align);
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The tiles of TiledLinearInto, run by parallel_for(count, fn).
template <typename ParallelForFn>
void RunTiles(MatrixView x, const LinearWeights& w, float* y, const LinearEpilogue& epilogue,
              const ParallelForFn& parallel_for) {
  UseSingleThreadedBlas();
  const int64_t in = w.in_features(), out = w.out_features(), n = x.rows;
  if (n == 0 || out == 0) return;
  // 1. Fixed tiles (a function of the shapes only). A LayerNorm needs whole rows, so its tiles span all columns.
  const int64_t tile_cols = epilogue.norm != nullptr ? out : BlockSize(out, kTiledLinearColumns, 16);
  int64_t tile_rows = BlockSize(n, kTiledLinearRows, 16);
  if (CeilDiv(n, tile_rows) * CeilDiv(out, tile_cols) == 1 && n >= 2) tile_rows = BlockSize(n, CeilDiv(n, 2), 16);
  const int64_t col_blocks = CeilDiv(out, tile_cols), row_blocks = CeilDiv(n, tile_rows);
  parallel_for(row_blocks * col_blocks, [&](int64_t block) {
    const int64_t row0 = (block / col_blocks) * tile_rows, rows = std::min(tile_rows, n - row0);
    const int64_t col0 = (block % col_blocks) * tile_cols, cols = std::min(tile_cols, out - col0);
    const float* x_block = x.data + row0 * x.cols;  // [rows, in]
    float* y_block = y + row0 * out + col0;         // [rows, cols], row stride out
    // 2. y = residual + b (or b, or 0), then sgemm adds x·W with beta = 1.
    const float* bias = w.bias.empty() ? nullptr : w.bias.data() + col0;
    for (int64_t r = 0; r < rows; ++r) {
      float* y_row = y_block + r * out;
      if (epilogue.residual != nullptr) {
        const float* res = epilogue.residual + (row0 + r) * out + col0;
        if (bias != nullptr) {
          for (int64_t c = 0; c < cols; ++c) y_row[c] = res[c] + bias[c];
        } else if (res != y_row) {
          std::copy_n(res, cols, y_row);
        }
      } else if (bias != nullptr) {
        std::copy_n(bias, cols, y_row);
      } else {
        std::fill_n(y_row, cols, 0.0f);
      }
    }
    if (in > 0) {
      const bool out_in = w.layout == WeightLayout::kOutIn;
      // kOutIn: weight rows [col0, col0 + cols) are the tile's outputs, y += x · W_tileᵀ;
      // kInOut: weight columns [col0, col0 + cols), y += x · W_tile.
      const float* w_tile = out_in ? w.weight.data + col0 * w.ld() : w.weight.data + col0;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, out_in ? CblasTrans : CblasNoTrans, static_cast<blasint>(rows),
                  static_cast<blasint>(cols), static_cast<blasint>(in), 1.0f, x_block, static_cast<blasint>(x.cols),
                  w_tile, static_cast<blasint>(w.ld()), 1.0f, y_block, static_cast<blasint>(out));
    }
    // 3. Activation or LayerNorm, row by row while the tile is in cache.
    for (int64_t r = 0; r < rows; ++r) {
      float* y_row = y_block + r * out;
      if (epilogue.activation) {
        ApplyActivation(*epilogue.activation, std::span<float>(y_row, static_cast<size_t>(cols)));
      }
      if (epilogue.norm != nullptr) LayerNormRowsInto({y_row, 1, out}, *epilogue.norm, y_row);  // cols == out
    }
  });
}

}  // namespace

void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads, const LinearEpilogue& epilogue) {
  RunTiles(x, w, y, epilogue,
           [threads](int64_t n, const std::function<void(int64_t)>& fn) { ParallelFor(n, threads, fn); });
}

void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, WorkerPool& pool,
                     const LinearEpilogue& epilogue) {
  RunTiles(x, w, y, epilogue, [&pool](int64_t n, const std::function<void(int64_t)>& fn) { pool.Run(n, fn); });
}

}  // namespace tokvec
