#include "kernels/tiled_linear.h"

#include <cblas.h>

#include <algorithm>
#include <functional>
#include <span>
#include <vector>

#include "kernels/layer_norm_rows.h"
#include "kernels/low_precision_linear.h"
#include "kernels/packed_gemm.h"

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

// Fewest rows an sgemm call of a tile gets, so that a row's result does not depend on how many rows share the
// call: OpenBLAS takes another code path for small products (measured here, Debian's 0.3.21 with the Haswell
// kernel on AMD EPYC: with in = 32 and 96 outputs, calls of 1-12 rows give other bits than calls of 13 or more;
// with 32 x 32, 1-37 rows; with 768 x 768 a single row), and its Skylake-X build takes a small-matrix kernel up
// to M·N·K = 10^6 (OpenBLAS kernel/x86_64/sgemm_small_kernel_permit_skylakex.c). Padding to M·N·K >= 2^20 and
// M >= 2 made every row bit-identical across 1..1100-row calls for all the shapes tried (32/128/768/3072 inputs
// and outputs). It is what lets a server batch requests together without changing any vector
// (server/batcher.h); it costs nothing for model-sized tiles (768 wide: M >= 2).
int64_t MinGemmRows(int64_t cols, int64_t in) {
  constexpr int64_t kLargeGemmWork = int64_t{1} << 20;
  return std::max<int64_t>(2, CeilDiv(kLargeGemmWork, std::max<int64_t>(1, cols * in)));
}

// Every sgemm call of a tile has a multiple of this many rows (padded with zero rows when the tile is shorter),
// and a tile starts at a multiple of it from its segment's first row. OpenBLAS's kernels compute rows in groups
// of their unroll width, the last partial group with other code, and (Haswell's kernels) a row's sum in an order
// that depends on its place in the group: with OPENBLAS_CORETYPE=Haswell on a Zen 5 EPYC, 32 -> 96 outputs, a
// 40-row call gave its rows 36..39 other bits than a 48-row call, and a call starting one row later gave every
// sixth row other bits; rows at the same offset modulo 12 in calls of whole groups always agreed. 48 is a
// multiple of the unroll widths of OpenBLAS's x86 sgemm kernels (4, 6, 8, 12, 16, 24).
constexpr int64_t kGemmRowMultiple = 48;

void Sgemm(bool out_in, int64_t rows, int64_t cols, int64_t in, const float* x, int64_t ldx, const float* w,
           int64_t ldw, float* y, int64_t ldy) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, out_in ? CblasTrans : CblasNoTrans, static_cast<blasint>(rows),
              static_cast<blasint>(cols), static_cast<blasint>(in), 1.0f, x, static_cast<blasint>(ldx), w,
              static_cast<blasint>(ldw), 1.0f, y, static_cast<blasint>(ldy));
}

// The tiles of TiledLinearInto, run by parallel_for(count, fn).
template <typename ParallelForFn>
void RunTiles(MatrixView x, const LinearWeights& w, float* y, const LinearEpilogue& epilogue, int workers,
              const ParallelForFn& parallel_for) {
  UseSingleThreadedBlas();
  const int64_t in = w.in_features(), out = w.out_features(), n = x.rows;
  if (n == 0 || out == 0) return;
  const int64_t ldy = epilogue.y_stride > 0 ? epilogue.y_stride : out;
  // tokvec's AVX-512 GEMM on the weight packed at load (packed_gemm.h), else OpenBLAS.
  const bool packed = w.packed != nullptr && PackedGemmAvailable() && w.packed->in_features() == in &&
                      w.packed->out_features() == out;
  // bf16 / int8 (low_precision_linear.h) only for the matrix they were packed from: a copy of w with another
  // `weight` view (alignment.cc narrows one) must not run them.
  const bool low = w.low != nullptr && w.low->in_features() == in && w.low->out_features() == out;
  const bool activation_fused = packed && !low && in > 0;  // MultiplyAdd applies it
  // 1. Fixed tiles (a function of the shapes only). A LayerNorm needs whole rows, so its tiles span all columns.
  //    Rows are tiled within each segment (a sequence of a batch; the whole input without segments): each
  //    segment in tiles of BlockSize(length, kTiledLinearRows, kGemmRowMultiple) rows, halved when that makes a
  //    single tile in all, so that two threads both have work.
  const int64_t tile_cols =
      epilogue.norm != nullptr ? out : BlockSize(out, kTiledLinearColumns, packed ? kPackedColumns : 16);
  const int64_t col_blocks = CeilDiv(out, tile_cols);
  // The packed GEMM gives a row the same bits in any tile, and so do bf16 / int8 (each row rounded or quantized
  // on its own, its sums in a fixed order or exact), so their tiles run across segments (a segment's last
  // 12-row group, 32 for AMX, is otherwise partly padding: ~5% of the work for ~120-token texts, ~20% with AMX)
  // and are cut by the thread count (each thread at least one row tile, so e.g. 8 threads share 2,048 rows).
  int64_t row_limit = kTiledLinearRows;
  std::vector<int64_t> equal;
  std::span<const int64_t> segments = epilogue.segment_lengths;
  if (packed || low) {
    equal.assign(1, n);
    segments = equal;
    row_limit = std::clamp<int64_t>(CeilDiv(n, std::max(workers, 1)), kGemmRowMultiple, kTiledLinearRows);
  } else if (segments.empty()) {
    const int64_t segment = epilogue.segment_rows > 0 && n % epilogue.segment_rows == 0 ? epilogue.segment_rows : n;
    equal.assign(static_cast<size_t>(n / segment), segment);
    segments = equal;
  }
  int64_t whole_tiles = 0;
  for (int64_t length : segments) {
    if (length > 0) whole_tiles += CeilDiv(length, BlockSize(length, row_limit, kGemmRowMultiple));
  }
  const bool halve = whole_tiles * col_blocks == 1 && n >= 2;
  struct RowTile {
    int64_t row0, rows;
  };
  std::vector<RowTile> row_tiles;
  int64_t start = 0;
  for (int64_t length : segments) {
    if (length > 0) {
      const int64_t tile_rows = BlockSize(length, halve ? CeilDiv(length, 2) : row_limit, kGemmRowMultiple);
      for (int64_t r = 0; r < length; r += tile_rows) {
        row_tiles.push_back({start + r, std::min(tile_rows, length - r)});
      }
    }
    start += length;
  }
  const int64_t row_blocks = static_cast<int64_t>(row_tiles.size());
  parallel_for(row_blocks * col_blocks, [&](int64_t block) {
    const int64_t row0 = row_tiles[block / col_blocks].row0, rows = row_tiles[block / col_blocks].rows;
    const int64_t col0 = (block % col_blocks) * tile_cols, cols = std::min(tile_cols, out - col0);
    const float* x_block = x.data + row0 * x.cols;  // [rows, in]
    float* y_block = y + row0 * ldy + col0;         // [rows, cols], row stride ldy
    // 2. y = residual + b (or b, or 0), then sgemm adds x·W with beta = 1.
    const float* bias = w.bias.empty() ? nullptr : w.bias.data() + col0;
    for (int64_t r = 0; r < rows; ++r) {
      float* y_row = y_block + r * ldy;
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
    if (in > 0 && low) {
      LowPrecisionTileInto(x_block, x.cols, rows, *w.low, col0, cols, y_block, ldy);  // bf16 / int8
    } else if (packed && in > 0) {
      // Any row count: same bits per row; the activation applied tile by tile inside.
      w.packed->MultiplyAdd(x_block, x.cols, rows, col0, cols, y_block, ldy, epilogue.activation);
    } else if (in > 0) {
      const bool out_in = w.layout == WeightLayout::kOutIn;
      // kOutIn: weight rows [col0, col0 + cols) are the tile's outputs, y += x · W_tileᵀ;
      // kInOut: weight columns [col0, col0 + cols), y += x · W_tile.
      const float* w_tile = out_in ? w.weight.data + col0 * w.ld() : w.weight.data + col0;
      const int64_t min_rows =
          CeilDiv(std::max(rows, MinGemmRows(cols, in)), kGemmRowMultiple) * kGemmRowMultiple;
      if (rows == min_rows) {
        Sgemm(out_in, rows, cols, in, x_block, x.cols, w_tile, w.ld(), y_block, ldy);
      } else {
        // Too few rows, or not a whole number of row groups: run the sgemm on the tile padded with zero rows
        // (see MinGemmRows and kGemmRowMultiple).
        thread_local std::vector<float> x_pad, y_pad;
        x_pad.assign(static_cast<size_t>(min_rows * in), 0.0f);  // [min_rows, in]
        y_pad.assign(static_cast<size_t>(min_rows * cols), 0.0f);  // [min_rows, cols]
        for (int64_t r = 0; r < rows; ++r) {
          std::copy_n(x_block + r * x.cols, in, x_pad.data() + r * in);
          std::copy_n(y_block + r * ldy, cols, y_pad.data() + r * cols);
        }
        Sgemm(out_in, min_rows, cols, in, x_pad.data(), in, w_tile, w.ld(), y_pad.data(), cols);
        for (int64_t r = 0; r < rows; ++r) std::copy_n(y_pad.data() + r * cols, cols, y_block + r * ldy);
      }
    }
    // 3. Activation or LayerNorm, row by row while the tile is in cache.
    for (int64_t r = 0; r < rows; ++r) {
      float* y_row = y_block + r * ldy;
      if (epilogue.activation && !activation_fused) {
        ApplyActivation(*epilogue.activation, std::span<float>(y_row, static_cast<size_t>(cols)));
      }
      if (epilogue.norm != nullptr) LayerNormRowsInto({y_row, 1, out}, *epilogue.norm, y_row);  // cols == out
    }
  });
}

}  // namespace

void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads, const LinearEpilogue& epilogue) {
  RunTiles(x, w, y, epilogue, threads,
           [threads](int64_t n, const std::function<void(int64_t)>& fn) { ParallelFor(n, threads, fn); });
}

void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, WorkerPool& pool,
                     const LinearEpilogue& epilogue) {
  RunTiles(x, w, y, epilogue, pool.threads(),
           [&pool](int64_t n, const std::function<void(int64_t)>& fn) { pool.Run(n, fn); });
}

}  // namespace tokvec
