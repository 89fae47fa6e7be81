#include "attention/relative_position_bias.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "fmt/format.h"

namespace tokvec {

int64_t RelativePositionBucket(int64_t relative) {
  const int64_t half = kRelativeBuckets / 2, exact = half / 2;
  const int64_t offset = relative > 0 ? half : 0;  // keys after the query: the upper half
  const int64_t distance = std::llabs(relative);
  if (distance < exact) return offset + distance;
  // float32 throughout, as torch computes it (log of a float tensor, divided and multiplied by float scalars), so
  // the truncation lands on the same side at the exact powers (16, 32, 64).
  const float ratio = static_cast<float>(distance) / static_cast<float>(exact);
  const float scaled = std::log(ratio) / static_cast<float>(std::log(static_cast<double>(kRelativeMaxDistance) /
                                                                      static_cast<double>(exact))) *
                       static_cast<float>(half - exact);
  return offset + std::min<int64_t>(exact + static_cast<int64_t>(scaled), half - 1);
}

absl::StatusOr<RelativePositionBias> RelativePositionBias::Make(MatrixView weight, int64_t max_len) {
  if (weight.rows < kRelativeBuckets || weight.cols <= 0 || max_len <= 0) {
    return absl::InvalidArgumentError(fmt::format(
        "relative position bias is [{}, {}]; expected at least {} buckets by the number of heads", weight.rows,
        weight.cols, kRelativeBuckets));
  }
  RelativePositionBias bias;
  bias.n_heads = weight.cols;
  bias.max_len = max_len;
  const int64_t width = 2 * max_len - 1;
  bias.table.resize(static_cast<size_t>(bias.n_heads * width));
  for (int64_t r = -(max_len - 1); r <= max_len - 1; ++r) {
    const float* row = weight.row(RelativePositionBucket(r));
    for (int64_t h = 0; h < bias.n_heads; ++h) bias.table[static_cast<size_t>(h * width + r + max_len - 1)] = row[h];
  }
  return bias;
}

void RelativePositionBias::FillHead(int64_t h, int64_t len, float* out) const {
  const int64_t width = 2 * max_len - 1;
  const float* head = table.data() + h * width + max_len - 1;  // head[r] for r in (-max_len, max_len)
  for (int64_t i = 0; i < len; ++i) {
    // key j: offset j - i, so row i is head[-i .. len - 1 - i]
    std::copy(head - i, head - i + len, out + i * len);
  }
}

}  // namespace tokvec
