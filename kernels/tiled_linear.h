// A linear layer for many rows at once (e.g. a whole batch, [B·T, in]), split over threads in fixed tiles, one
// cblas_sgemm each, with the bias, an optional activation, an optional residual and an optional LayerNorm
// applied to the tile's rows while they are still in cache (the "epilogue").
//
//   Matrix y(x.rows, w.out_features());                                   // [B·T, out]
//   TiledLinearInto(x, w, y.data(), /*threads=*/2, Activation::kRelu);    // y = relu(x·Wᵀ + b)
//   TiledLinearInto(x, w, h, 2, {.residual = r, .norm = &ln});            // h = LN(r + x·Wᵀ + b)
//
// Why tiles: LinearInto (ops.h) calls cblas_sgemm once per 64 rows, so OpenBLAS re-packs the whole weight for
// every 64 rows; every tile here re-packs its inputs once, so big tiles win. CPU (user) time of 11 runs of
// `tokvec bench layer --threads 1` (768/12/3072, batch 8 x 128; shared machine): 128-column tiles of all rows
// 1.64–1.75 s, 384 columns 1.50–1.64 s, 768 columns 1.40–1.41 s; 512 rows x 768 columns 1.45–1.49 s.
// Tiles are now at most kTiledLinearRows x kTiledLinearColumns, balanced (a 2304-wide output gets two 1152-wide
// tiles, not 1536 + 768), and at least two when the rows allow it so two threads both have work. Single-thread
// sgemm CPU time over 1024 rows (a standalone timing of the same shapes, shared machine, two passes): the
// 768 -> 3072 feed-forward took 29.2 ms as 1024 x 1536 tiles against 31.0–31.2 ms as 512 x 768 tiles; whole
// `tokvec bench layer --threads 1` runs: 1024 x 1536 102–105 ms, 512 x 768 107–109, 1024 x 768 106–107,
// 512 x 1536 106–107, 1024 x 2304 104–107.
// Why the epilogue: the bias (and residual) are written into y before sgemm runs with beta = 1, which replaces
// OpenBLAS's C-zeroing pass (sgemm_beta, 2% of the 1-thread layer profile) and a separate bias pass; residual
// + LayerNorm in the tile replaces two passes over [B·T, D] and a thread barrier per LayerNorm. Together with the
// tile shapes: `tokvec bench layer --threads 1` 110–116 -> 104–107 ms, interleaved with the previous build.
// Results are the same for any thread count (OpenBLAS: the tiles depend only on the shapes; the packed GEMM: a
// row's bits never depend on its tile, so its tiles span sequences and are cut by the thread count); they equal
// LinearInto within float rounding (a different sgemm blocking and summation order), see
// tests/kernels/tiled_linear_test.cc.
// Packed weights: when w.packed is set (a model packs its projections at load, pack_linears.h) and the CPU has
// AVX-512F, each tile runs PackedWeights::MultiplyAdd (packed_gemm.h) instead of cblas_sgemm, with the same
// epilogue; column tiles are then multiples of 32 and no row padding is needed (a row's bits never depend on the
// call). `tokvec bench gemm`, 1 thread, shared machine: 180-243 GFLOP/s against OpenBLAS's 122-128 (x1.5-1.9)
// on the GPT-2 projection shapes; see bench/README.md "Whole model" for the whole forward.
#ifndef TOKVEC_KERNELS_TILED_LINEAR_H_
#define TOKVEC_KERNELS_TILED_LINEAR_H_

#include <cstdint>
#include <optional>
#include <span>

#include "base/worker_pool.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace tokvec {

inline constexpr int64_t kTiledLinearColumns = 1536;
inline constexpr int64_t kTiledLinearRows = 1024;

// What happens to each output row after x·W(ᵀ) + b, in this order.
struct LinearEpilogue {
  std::optional<Activation> activation;    // y = act(x·W + b); not combined with `residual` or `norm`
  const float* residual = nullptr;          // [rows, out] (row stride out): y = residual + x·W + b; may equal y
  const LayerNormWeights* norm = nullptr;   // then y = LayerNorm(y) over each row
  // Rows per sequence when x is a batch of equal-length sequences ([B·T, in]: T), or 0. Tiles then never span two
  // sequences and start at a sequence's first row plus a multiple of 48, so a sequence's rows get the same bits
  // whatever batch they are in (OpenBLAS's kernels round a row differently by its offset in the call: see
  // kGemmRowMultiple in tiled_linear.cc). Must divide x.rows.
  int64_t segment_rows = 0;
  // The same for sequences of any lengths stacked in x (they sum to x.rows); when set, segment_rows is ignored.
  std::span<const int64_t> segment_lengths;
  // Row stride of y when it is wider than the output (>= out; 0: out), e.g. one of q/k/v written straight into
  // its columns of a [N, 3D] buffer. `residual` keeps row stride out; not combined with `residual` in place.
  int64_t y_stride = 0;
};

// Unchecked: y ([x.rows, out], ld = out or epilogue.y_stride) = epilogue(x·W(ᵀ) + b). See ValidateLinear for the
// shape checks.
void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads, const LinearEpilogue& epilogue);

// The same with the tiles spread over a kept pool of threads (worker_pool.h).
void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, WorkerPool& pool,
                     const LinearEpilogue& epilogue);

// y = act(x·W(ᵀ) + b), or x·W(ᵀ) + b without an activation.
inline void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads,
                            std::optional<Activation> activation = std::nullopt) {
  TiledLinearInto(x, w, y, threads, LinearEpilogue{.activation = activation});
}

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_TILED_LINEAR_H_
