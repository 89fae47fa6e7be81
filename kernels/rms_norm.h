// RMSNorm (Zhang & Sennrich 2019, https://arxiv.org/abs/1910.07467), as LLaMA, Qwen2 and Qwen3 use it: each row
// is divided by its root mean square, then scaled per feature; no mean subtraction, no bias.
//
//   y = x / sqrt(mean(x²) + eps) · gamma
//
//   RmsNormWeights norm{.gamma = weight, .eps = 1e-6f};                      // model.norm.weight [D]
//   RmsNormRows(x.data(), x.rows(), x.cols(), x.cols(), norm, y.data(), y.cols());   // y: [T, D]
//   // Qwen3's per-head q_norm: rows of head_dim floats inside a wider row, normalized in place
//   RmsNormRows(q.data() + h * dh, T, dh, q.cols(), q_norm, q.data() + h * dh, q.cols());
//
// The mean of squares is summed in double (as LayerNorm in ops.h), so a row's result does not depend on how it is
// split over threads. Hugging Face's LlamaRMSNorm computes in float32 and rounds back to the input dtype.
#ifndef TOKVEC_KERNELS_RMS_NORM_H_
#define TOKVEC_KERNELS_RMS_NORM_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/status.h"

namespace tokvec {

struct RmsNormWeights {
  std::span<const float> gamma;  // [width]
  float eps = 1e-6f;             // config rms_norm_eps
};

// InvalidArgument naming `name` unless gamma has `width` entries.
absl::Status ValidateRmsNorm(const RmsNormWeights& w, int64_t width, std::string_view name);

// Unchecked: `rows` rows of `width` floats, x row r at x + r * x_stride, written to y + r * y_stride (y may equal
// x: in place).
void RmsNormRows(const float* x, int64_t rows, int64_t width, int64_t x_stride, const RmsNormWeights& w, float* y,
                 int64_t y_stride);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_RMS_NORM_H_
