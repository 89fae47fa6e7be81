// A linear layer for many rows at once (e.g. a whole batch, [B·T, in]), split over threads by fixed blocks of
// output columns instead of blocks of rows, with the bias and an optional activation applied while the block
// is still in cache.
//
//   Matrix y(x.rows, w.out_features());                                   // [B·T, out]
//   TiledLinearInto(x, w, y.data(), /*threads=*/2, Activation::kRelu);    // y = relu(x·Wᵀ + b)
//
// Why: LinearInto (ops.h) calls cblas_sgemm once per 64 rows, so OpenBLAS re-packs the whole weight matrix for
// every 64 rows; for [1024, 768] x [768, 3072] that packing costs more than it saves. One call per block of
// kTiledLinearColumns output columns with all rows packs each weight once. Measured with `tokvec bench layer
// --d-model 768 --heads 12 --ff 3072 --batch 8 --seq-len 128 --threads 2` (see tiled_linear.cc for figures).
// Results are the same for any thread count (the blocks are fixed); they equal LinearInto within float
// rounding (a different sgemm blocking), see tests/attention/tiled_linear_test.cc.
#ifndef TOKVEC_ATTENTION_TILED_LINEAR_H_
#define TOKVEC_ATTENTION_TILED_LINEAR_H_

#include <cstdint>
#include <optional>

#include "attention/ops.h"
#include "embeddings/tensor.h"

namespace tokvec {

inline constexpr int64_t kTiledLinearColumns = 128;

// Unchecked: y ([x.rows, out], ld = out) = act(x·W(ᵀ) + b). See ValidateLinear for the shape checks.
void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads,
                     std::optional<Activation> activation = std::nullopt);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_TILED_LINEAR_H_
