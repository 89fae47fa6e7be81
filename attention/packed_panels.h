// The weight layout the reduced-precision kernels (bf16_linear.h, int8_linear.h) share: outputs in panels of 16
// (one AVX-512 register of f32 / int32 results), each panel a run of k-groups (2 inputs for bf16, 4 for int8) of
// 16 outputs x group inputs, zero-padded in both directions. A kernel then loads one register of weights per panel
// and k-group and broadcasts a group of one row's activations against it.
//
//   const int64_t panels = PanelCount(w.out_features());
//   float v = WeightAt(w, /*input=*/i, /*output=*/o);   // either layout, any row stride
#ifndef TOKVEC_ATTENTION_PACKED_PANELS_H_
#define TOKVEC_ATTENTION_PACKED_PANELS_H_

#include <cstdint>

#include "attention/ops.h"

namespace tokvec {

inline constexpr int64_t kPanelWidth = 16;  // outputs per panel

inline int64_t PanelCount(int64_t out) { return (out + kPanelWidth - 1) / kPanelWidth; }

// W[input, output] as y = x·W: weight[output, input] for nn.Linear (kOutIn), weight[input, output] for Conv1D.
inline float WeightAt(const LinearWeights& w, int64_t input, int64_t output) {
  return w.layout == WeightLayout::kOutIn ? w.weight.data[output * w.ld() + input]
                                          : w.weight.data[input * w.ld() + output];
}

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_PACKED_PANELS_H_
