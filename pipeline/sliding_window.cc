#include "pipeline/sliding_window.h"

#include <algorithm>

#include "fmt/format.h"

namespace tokvec {

absl::StatusOr<std::vector<Window>> PlanWindows(int64_t seq_len, int64_t window, int64_t stride) {
  if (window < 1) return absl::InvalidArgumentError(fmt::format("--window must be at least 1, not {}", window));
  if (stride < 1 || stride > window) {
    return absl::InvalidArgumentError(fmt::format(
        "--stride {} must be between 1 and --window {} (a larger stride would skip tokens)", stride, window));
  }
  std::vector<Window> windows;
  if (seq_len <= window) {
    windows.push_back({0, seq_len});
    return windows;
  }
  for (int64_t begin = 0;; begin += stride) {
    if (begin + window >= seq_len) {
      windows.push_back({seq_len - window, seq_len});  // the last window ends at the sequence's end
      break;
    }
    windows.push_back({begin, begin + window});
  }
  return windows;
}

std::vector<int> AssignTokensToWindows(const std::vector<Window>& windows, int64_t seq_len, bool causal) {
  std::vector<int> owner(static_cast<size_t>(seq_len), 0);
  std::vector<int64_t> best(static_cast<size_t>(seq_len), -1);
  for (size_t w = 0; w < windows.size(); ++w) {
    for (int64_t t = windows[w].begin; t < windows[w].end; ++t) {
      const int64_t left = t - windows[w].begin, right = windows[w].end - 1 - t;
      const int64_t context = causal ? left : std::min(left, right);
      if (context > best[t]) {  // strictly more: the earlier window wins ties
        best[t] = context;
        owner[t] = static_cast<int>(w);
      }
    }
  }
  return owner;
}

}  // namespace tokvec
