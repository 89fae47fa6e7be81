#include "attention/mask.h"

#include <algorithm>
#include <limits>

#include "fmt/format.h"

namespace tokvec {

absl::Status ValidateMask(const AttentionMask& mask, int64_t q_len, int64_t k_len) {
  if (!mask.key_padding.empty() && static_cast<int64_t>(mask.key_padding.size()) != k_len) {
    return absl::InvalidArgumentError(fmt::format("key padding mask has {} entries; expected one per key ({})",
                                                  mask.key_padding.size(), k_len));
  }
  if (!mask.blocked.empty() && static_cast<int64_t>(mask.blocked.size()) != q_len * k_len) {
    return absl::InvalidArgumentError(fmt::format(
        "boolean attention mask has {} entries; expected [{}, {}] = {} (queries x keys)", mask.blocked.size(),
        q_len, k_len, q_len * k_len));
  }
  if (mask.additive.size() != 0 && (mask.additive.rows() != q_len || mask.additive.cols() != k_len)) {
    return absl::InvalidArgumentError(fmt::format("additive attention mask is [{}, {}]; expected [{}, {}]",
                                                  mask.additive.rows(), mask.additive.cols(), q_len, k_len));
  }
  return absl::OkStatus();
}

void ApplyMaskToRow(const AttentionMask& mask, int64_t i, int64_t q_len, int64_t k_len, float* scores) {
  constexpr float kBlocked = -std::numeric_limits<float>::infinity();
  if (mask.additive.size() != 0) {
    const float* add = mask.additive.row(i);
    for (int64_t j = 0; j < k_len; ++j) scores[j] += add[j];
  }
  if (!mask.blocked.empty()) {
    const uint8_t* blocked = mask.blocked.data() + i * k_len;
    for (int64_t j = 0; j < k_len; ++j) {
      if (blocked[j]) scores[j] = kBlocked;
    }
  }
  if (!mask.key_padding.empty()) {
    for (int64_t j = 0; j < k_len; ++j) {
      if (mask.key_padding[static_cast<size_t>(j)]) scores[j] = kBlocked;
    }
  }
  if (mask.causal) {
    const int64_t last_visible = i + (k_len - q_len);  // keys j > last_visible are in the future
    for (int64_t j = std::max<int64_t>(last_visible + 1, 0); j < k_len; ++j) scores[j] = kBlocked;
  }
}

}  // namespace tokvec
