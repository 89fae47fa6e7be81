// Linformer (Wang et al. 2020, https://arxiv.org/abs/2006.04768): keys and values projected along the sequence to
// K rows by learned E, F [K, N] (N = the model's maximum length; per layer, shared by the heads):
//
//   k' = E[:, :T]·k,  v' = F[:, :T]·v        [K, Dh]
//   out = softmax(s·q·k'ᵀ)·v'                [T, Dh], time O(T·K·Dh), memory O(T·Dh + K·T)
//
//   LinformerScratch scratch;
//   LinformerAttendHead(e, f, q, k, v, /*key_padding=*/{}, 0.125f, &scratch, out, out_stride);
//
// Bidirectional only. Key padding zeroes the padded columns of E and F (a padded key contributes nothing).
#ifndef TOKVEC_ATTENTION_LINFORMER_H_
#define TOKVEC_ATTENTION_LINFORMER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "attention/scaled_dot_product.h"
#include "kernels/tensor.h"

namespace tokvec {

struct LinformerScratch {
  std::vector<float> e, f, keys, values, scores;
};

// Unchecked: T = q.rows = k.rows = v.rows <= e.cols; e and f [K, N]. `weights` (null or [T, T]) receives the implied
// weights w_ij = Σ_r p_ir·F_rj.
void LinformerAttendHead(MatrixView e, MatrixView f, StridedView q, StridedView k, StridedView v,
                         std::span<const uint8_t> key_padding, float scale, LinformerScratch* scratch, float* out,
                         int64_t out_stride, float* weights = nullptr);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_LINFORMER_H_
