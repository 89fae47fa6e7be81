// LayerNorm of many rows (ops.h's LayerNormInto) with AVX-512 when the CPU has it: the same formula, statistics
// in double, evaluated 8 doubles at a time. Used by the batched block (batched_block.h) and the LayerNorm
// epilogue of tiled_linear.h.
//
//   LayerNormRowsInto(x, ln, y);   // y = LN(x) row by row; x and y may be the same buffer   x, y: [N, D]
//
// Why: the scalar LayerNormInto (double per element, SSE2 baseline build) was 2.2% of the 1-thread
// `tokvec bench layer` profile, the largest item after sgemm and attention.
// Results equal LayerNormInto up to the summation order of the double mean and variance (a last-bit difference
// in the float output at most; tests/kernels/layer_norm_rows_test.cc).
#ifndef TOKVEC_KERNELS_LAYER_NORM_ROWS_H_
#define TOKVEC_KERNELS_LAYER_NORM_ROWS_H_

#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace tokvec {

// Unchecked (see ValidateLayerNorm): y ([x.rows, x.cols], ld = x.cols) = LayerNorm of each row of x. In place is
// allowed (y == x.data when x is dense).
void LayerNormRowsInto(MatrixView x, const LayerNormWeights& w, float* y);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_LAYER_NORM_ROWS_H_
