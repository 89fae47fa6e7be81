#include "tokenizer/processors/truncation.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {

std::string_view TruncationStrategyName(TruncationStrategy strategy) {
  switch (strategy) {
    case TruncationStrategy::kLongestFirst:
      return "LongestFirst";
    case TruncationStrategy::kOnlyFirst:
      return "OnlyFirst";
    case TruncationStrategy::kOnlySecond:
      return "OnlySecond";
  }
  return "?";
}

std::string_view TruncationSideName(TruncationSide side) { return side == TruncationSide::kLeft ? "Left" : "Right"; }

absl::Status TruncateWindows(EncodedTokens* rows, size_t max_length, size_t stride, TruncationSide side) {
  const size_t n = rows->size();
  if (max_length >= n) return absl::OkStatus();
  if (max_length == 0) {
    EncodedTokens all = std::move(*rows);
    *rows = EncodedTokens{};
    rows->overflowing.push_back(std::move(all));
    return absl::OkStatus();
  }
  if (stride >= max_length) {
    return absl::InvalidArgumentError(fmt::format(
        "the truncation stride ({}) must be less than the length it cuts to ({}; max_length less the tokens the "
        "post-processor adds)",
        stride, max_length));
  }
  // The windows, first the one kept: from the start (right) or back from the end (left), `step` apart, until one
  // reaches the other end.
  const size_t step = max_length - stride;
  std::vector<std::pair<size_t, size_t>> windows;
  if (side == TruncationSide::kRight) {
    for (size_t begin = 0; begin < n; begin += step) {
      const size_t end = std::min(begin + max_length, n);
      windows.emplace_back(begin, end);
      if (end == n) break;
    }
  } else {
    for (size_t last = n; last > 0;) {  // `last` is one past the window's end
      const size_t begin = last > max_length ? last - max_length : 0;
      windows.emplace_back(begin, last);
      if (begin == 0 || last <= step) break;
      last -= step;
    }
  }
  EncodedTokens kept = rows->Slice(windows[0].first, windows[0].second);
  for (size_t i = 1; i < windows.size(); ++i) kept.overflowing.push_back(rows->Slice(windows[i].first, windows[i].second));
  *rows = std::move(kept);
  return absl::OkStatus();
}

absl::Status TruncateSequences(EncodedTokens* a, EncodedTokens* b, const TruncationParams& params) {
  if (params.max_length == 0) {
    TOKVEC_RETURN_IF_ERROR(TruncateWindows(a, 0, params.stride, params.direction));
    if (b != nullptr) TOKVEC_RETURN_IF_ERROR(TruncateWindows(b, 0, params.stride, params.direction));
    return absl::OkStatus();
  }
  const size_t total = a->size() + (b != nullptr ? b->size() : 0);
  if (total <= params.max_length) return absl::OkStatus();
  const size_t to_remove = total - params.max_length;
  if (params.strategy == TruncationStrategy::kLongestFirst) {
    if (b == nullptr) return TruncateWindows(a, params.max_length, params.stride, params.direction);
    // The shorter text keeps its length when the longer one can give up enough; else both get about half.
    size_t short_length = std::min(a->size(), b->size());
    size_t long_length = short_length > params.max_length
                             ? short_length
                             : std::max(short_length, params.max_length - short_length);
    if (short_length + long_length > params.max_length) {
      short_length = params.max_length / 2;
      long_length = short_length + params.max_length % 2;
    }
    const bool a_is_longer = a->size() > b->size();
    TOKVEC_RETURN_IF_ERROR(TruncateWindows(a, a_is_longer ? long_length : short_length, params.stride,
                                           params.direction));
    return TruncateWindows(b, a_is_longer ? short_length : long_length, params.stride, params.direction);
  }
  EncodedTokens* target = params.strategy == TruncationStrategy::kOnlyFirst ? a : b;
  if (target == nullptr) {
    return absl::InvalidArgumentError("truncation OnlySecond needs a second text (a sentence pair)");
  }
  if (target->size() <= to_remove) {
    return absl::InvalidArgumentError(fmt::format(
        "truncation {} cannot reach max_length {}: the text it cuts has {} tokens and {} must go",
        TruncationStrategyName(params.strategy), params.max_length, target->size(), to_remove));
  }
  return TruncateWindows(target, target->size() - to_remove, params.stride, params.direction);
}

}  // namespace tokvec
