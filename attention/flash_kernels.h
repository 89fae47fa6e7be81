// AVX-512 micro-kernels of the tiled attention in flash_attention.cc: the two matrix products of a tile without
// the packing copies and C-zeroing that cblas_sgemm does on every call.
//
//   PackKeyPanels(k, panels);                                       // once per head: Kᵀ in panels of 32 keys
//   TileScores(q_block, rows, panels, k0, cols, scale, s, Bk);      // S = scale · Q_b·K_bᵀ     [rows, cols]
//   TileContext(s, Bk, rows, cols, v_block, alpha, o, o_stride);    // O = diag(α)·O + P·V_b    [rows, Dv]
//
// Why (`tokvec bench attention --seq-len 4096 --heads 4 --head-dim 64 --threads 1` under perf, shared machine):
// with two cblas_sgemm per tile, OpenBLAS's packing routines (sgemm_incopy/oncopy/itcopy) took 21% of the time
// and zeroing C another 3%, mostly re-packing the probabilities P for P·V. These kernels read Q and P in place
// (broadcasting one element per FMA), read V rows in place, and read K from a one-time transposed copy (T·Dk
// floats per head, still linear in T). The running-context rescale by α is folded into TileContext.
// Same-run ratio to one-thread sgemm 2048³ (T=4096, 12 heads, 1 thread): 0.51–0.56 with cblas tiles, 0.61–0.64
// with these kernels.
// Only call when Avx512Available(); TileContext needs Dv in {16, 32, 48, 64}.
#ifndef TOKVEC_ATTENTION_FLASH_KERNELS_H_
#define TOKVEC_ATTENTION_FLASH_KERNELS_H_

#include <cstdint>
#include <vector>

#include "attention/scaled_dot_product.h"
#include "kernels/cpu_features.h"

namespace tokvec {

// Keys per panel of the transposed key copy.
inline constexpr int64_t kKeyPanel = 32;

// Whether TileContext handles value width v_dim.
inline bool TileContextSupports(int64_t v_dim) { return v_dim > 0 && v_dim <= 64 && v_dim % 16 == 0; }

// k: [Tk, Dk] -> panels: ceil(Tk/32) panels of [Dk, 32] (key j of panel p at column j; missing keys are 0).
void PackKeyPanels(StridedView k, std::vector<float>* panels);

// s (row stride s_stride) = scale · q·kᵀ for `rows` queries (q: row stride q_stride, Dk = head_dim) and keys
// [k0, k0 + cols) of the packed panels; k0 is a multiple of 32. Writes whole panels: up to 31 columns past
// `cols` (s_stride must leave room).
void TileScores(const float* q, int64_t q_stride, int64_t rows, int64_t head_dim, const float* panels, int64_t k0,
                int64_t cols, float scale, float* s, int64_t s_stride);

// o[r] = alpha[r] · o[r] + Σ_j p[r, j] · v[j] for r < rows, j < cols. o: row stride o_stride, v_dim wide.
void TileContext(const float* p, int64_t p_stride, int64_t rows, int64_t cols, const float* v, int64_t v_stride,
                 int64_t v_dim, const float* alpha, float* o, int64_t o_stride);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_FLASH_KERNELS_H_
