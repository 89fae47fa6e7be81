#include "kernels/rms_norm.h"

#include <cmath>

#include "fmt/format.h"

namespace tokvec {

absl::Status ValidateRmsNorm(const RmsNormWeights& w, int64_t width, std::string_view name) {
  if (static_cast<int64_t>(w.gamma.size()) != width) {
    return absl::InvalidArgumentError(
        fmt::format("{}: RMSNorm weight has {} entries, expected {}", name, w.gamma.size(), width));
  }
  return absl::OkStatus();
}

void RmsNormRows(const float* x, int64_t rows, int64_t width, int64_t x_stride, const RmsNormWeights& w, float* y,
                 int64_t y_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * x_stride;
    float* out = y + r * y_stride;
    double sum_sq = 0.0;
    for (int64_t j = 0; j < width; ++j) sum_sq += static_cast<double>(in[j]) * in[j];
    const double inv = 1.0 / std::sqrt(sum_sq / static_cast<double>(width) + w.eps);
    for (int64_t j = 0; j < width; ++j) {
      out[j] = static_cast<float>(in[j] * inv * w.gamma[static_cast<size_t>(j)]);
    }
  }
}

}  // namespace tokvec
