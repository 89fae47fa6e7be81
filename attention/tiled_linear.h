// A linear layer for many rows at once (e.g. a whole batch, [B·T, in]), split over threads in fixed tiles of
// kTiledLinearRows x kTiledLinearColumns outputs, one cblas_sgemm per tile, with the bias and an optional
// activation applied while the tile is still in cache.
//
//   Matrix y(x.rows, w.out_features());                                   // [B·T, out]
//   TiledLinearInto(x, w, y.data(), /*threads=*/2, Activation::kRelu);    // y = relu(x·Wᵀ + b)
//
// Why: LinearInto (ops.h) calls cblas_sgemm once per 64 rows, so OpenBLAS re-packs the whole weight for every
// 64 rows; every tile here re-packs its inputs once, so big tiles win. CPU (user) time of 11 runs of
// `tokvec bench layer --threads 1` (768/12/3072, batch 8 x 128; shared machine): 128-column tiles of all rows
// 1.64–1.75 s, 384 columns 1.50–1.64 s, 768 columns 1.40–1.41 s; 512 rows x 768 columns 1.45–1.49 s, kept so
// that a 768-wide output still gives both threads a tile.
// Results are the same for any thread count (the tiles are fixed); they equal LinearInto within float
// rounding (a different sgemm blocking), see tests/attention/tiled_linear_test.cc.
#ifndef TOKVEC_ATTENTION_TILED_LINEAR_H_
#define TOKVEC_ATTENTION_TILED_LINEAR_H_

#include <cstdint>
#include <optional>

#include "attention/ops.h"
#include "embeddings/tensor.h"

namespace tokvec {

inline constexpr int64_t kTiledLinearColumns = 768;
inline constexpr int64_t kTiledLinearRows = 512;

// Unchecked: y ([x.rows, out], ld = out) = act(x·W(ᵀ) + b). See ValidateLinear for the shape checks.
void TiledLinearInto(MatrixView x, const LinearWeights& w, float* y, int threads,
                     std::optional<Activation> activation = std::nullopt);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_TILED_LINEAR_H_
