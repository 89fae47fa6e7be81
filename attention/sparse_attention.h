// One head of a sparse kind of attention (window, longformer, bigbird: sparse_pattern.h) with the tiled online
// softmax of flash_attention.h: per block of kFlashQueryBlock queries only the key tiles inside the union of the
// block's intervals are computed (aligned to the 32-key panels of the AVX-512 kernels), and entries of those tiles
// outside a row's own intervals, or on padded keys, are masked. Time O(T·(keys per query)·Dh), memory O(T·Dh).
//
//   TOKVEC_ASSIGN_OR_RETURN(SparsePattern pattern, SparsePattern::Make(kind, t, /*causal=*/true, seed));
//   FlashScratch scratch;
//   SparseAttendHead(pattern, q, k, v, /*key_padding=*/{}, 0.125f, &scratch, out, out_stride);
//
// Where a row's intervals cover a tile (window:W with W >= T), the arithmetic is FlashAttendHead's, bit for bit.
// A query with no visible key gets a zero context row.
#ifndef TOKVEC_ATTENTION_SPARSE_ATTENTION_H_
#define TOKVEC_ATTENTION_SPARSE_ATTENTION_H_

#include <cstdint>
#include <span>

#include "attention/flash_attention.h"
#include "attention/scaled_dot_product.h"
#include "attention/sparse_pattern.h"

namespace tokvec {

// Unchecked: q, k, v have pattern.seq_len() rows; key_padding is empty or [T] (nonzero = padding).
void SparseAttendHead(const SparsePattern& pattern, StridedView q, StridedView k, StridedView v,
                      std::span<const uint8_t> key_padding, float scale, FlashScratch* scratch, float* out,
                      int64_t out_stride, bool portable = false);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_SPARSE_ATTENTION_H_
