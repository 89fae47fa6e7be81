// The weight layout the reduced-precision kernels (bf16_linear.h, int8_linear.h) share: outputs in panels of 16
// (one AVX-512 register of f32 / int32 results), each panel a run of k-groups (2 inputs for bf16, 4 for int8) of
// 16 outputs x group inputs, zero-padded in both directions. A kernel then loads one register of weights per panel
// and k-group and broadcasts a group of one row's activations against it.
//
//   const int64_t panels = PanelCount(w.out_features());
//   float v = WeightAt(w, /*input=*/i, /*output=*/o);   // either layout, any row stride
//   ForEachKernelCall(rows, cols, row_bytes, 6, 4, [&](int64_t r0, int64_t p, int rows_here, int panels_here) {...});
#ifndef TOKVEC_KERNELS_PACKED_PANELS_H_
#define TOKVEC_KERNELS_PACKED_PANELS_H_

#include <algorithm>
#include <cstdint>

#include "kernels/ops.h"

namespace tokvec {

inline constexpr int64_t kPanelWidth = 16;  // outputs per panel

inline int64_t PanelCount(int64_t out) { return (out + kPanelWidth - 1) / kPanelWidth; }

// W[input, output] as y = x·W: weight[output, input] for nn.Linear (kOutIn), weight[input, output] for Conv1D.
inline float WeightAt(const LinearWeights& w, int64_t input, int64_t output) {
  return w.layout == WeightLayout::kOutIn ? w.weight.data[output * w.ld() + input]
                                          : w.weight.data[input * w.ld() + output];
}

// The micro-kernel calls that cover a tile of [rows, cols] outputs: rows in blocks whose activations (row_bytes
// each) fill ~256 KB, reused from L2 by every group of `panels_per_call` panels; within a block, calls of
// `rows_per_call` rows (the last may have fewer: the caller pads its activations to a multiple of rows_per_call).
// fn(first row, first panel of the tile, rows, panels).
template <typename KernelCall>
void ForEachKernelCall(int64_t rows, int64_t cols, int64_t row_bytes, int rows_per_call, int panels_per_call,
                       const KernelCall& fn) {
  constexpr int64_t kRowBlockBytes = 256 * 1024;
  const int64_t block_rows = std::max<int64_t>(1, kRowBlockBytes / (row_bytes * rows_per_call)) * rows_per_call;
  const int64_t panels = PanelCount(cols);
  for (int64_t m0 = 0; m0 < rows; m0 += block_rows) {
    const int64_t m1 = std::min(rows, m0 + block_rows);
    for (int64_t p = 0; p < panels; p += panels_per_call) {
      for (int64_t r0 = m0; r0 < m1; r0 += rows_per_call) {
        fn(r0, p, static_cast<int>(std::min<int64_t>(rows_per_call, m1 - r0)),
           static_cast<int>(std::min<int64_t>(panels_per_call, panels - p)));
      }
    }
  }
}

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_PACKED_PANELS_H_
