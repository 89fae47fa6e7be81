#include "attention/tiled_linear.h"

#include <cblas.h>

#include <algorithm>
#include <span>

namespace tokvec {

void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads,
                     std::optional<Activation> activation) {
  UseSingleThreadedBlas();
  const int64_t in = w.in_features(), out = w.out_features();
  if (x.rows == 0 || out == 0) return;
  const int64_t col_blocks = (out + kTiledLinearColumns - 1) / kTiledLinearColumns;
  const int64_t row_blocks = (x.rows + kTiledLinearRows - 1) / kTiledLinearRows;
  ParallelFor(row_blocks * col_blocks, threads, [&](int64_t block) {
    const int64_t row0 = (block / col_blocks) * kTiledLinearRows;
    const int64_t rows = std::min(kTiledLinearRows, x.rows - row0);
    const int64_t col0 = (block % col_blocks) * kTiledLinearColumns;
    const int64_t cols = std::min(kTiledLinearColumns, out - col0);
    const float* x_block = x.data + row0 * x.cols;  // [rows, in]
    float* y_block = y + row0 * out + col0;         // [rows, cols], row stride out
    if (w.layout == WeightLayout::kOutIn) {
      // weight rows [col0, col0 + cols) are the block's outputs: y_block = x · W_blockᵀ
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows), static_cast<blasint>(cols),
                  static_cast<blasint>(in), 1.0f, x_block, static_cast<blasint>(x.cols), w.weight.data + col0 * w.ld(),
                  static_cast<blasint>(w.ld()), 0.0f, y_block, static_cast<blasint>(out));
    } else {
      // weight columns [col0, col0 + cols): y_block = x · W_block
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows),
                  static_cast<blasint>(cols), static_cast<blasint>(in), 1.0f, x_block, static_cast<blasint>(x.cols),
                  w.weight.data + col0, static_cast<blasint>(w.ld()), 0.0f, y_block, static_cast<blasint>(out));
    }
    for (int64_t r = 0; r < rows; ++r) {
      float* y_row = y_block + r * out;
      if (!w.bias.empty()) {
        const float* b = w.bias.data() + col0;
        for (int64_t c = 0; c < cols; ++c) y_row[c] += b[c];
      }
      if (activation) ApplyActivation(*activation, std::span<float>(y_row, static_cast<size_t>(cols)));
    }
  });
}

}  // namespace tokvec
