// Sliding windows over a sequence longer than a model's maximum length.
//
// Windows of `window` tokens start at 0, stride, 2*stride, ...; the last one is moved back to end exactly at the
// sequence's end, so every token is covered and no window is shorter than `window` (unless the sequence is).
// Each token's vector then comes from the window where it has the most context:
//   - causal models (GPT-2): the most tokens to its left inside the window, t - begin;
//   - bidirectional models: the larger of min(t - begin, end - 1 - t), i.e. the window where it sits most
//     centrally;
// on a tie, the earlier window. (Overlap = window - stride tokens; stride == window gives disjoint windows.)
//
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<Window> windows, PlanWindows(/*seq_len=*/10, /*window=*/4, /*stride=*/3));
//   // windows: [0,4) [3,7) [6,10)
//   std::vector<int> owner = AssignTokensToWindows(windows, 10, /*causal=*/true);
//   // owner: 0 0 0 0 1 1 1 2 2 2  (token 3 has 3 tokens to its left in [0,4) but 0 in [3,7))
#ifndef TOKVEC_PIPELINE_SLIDING_WINDOW_H_
#define TOKVEC_PIPELINE_SLIDING_WINDOW_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace tokvec {

struct Window {
  int64_t begin = 0;  // first token
  int64_t end = 0;    // one past the last token
};

// window >= 1, 1 <= stride <= window (a larger stride would skip tokens): InvalidArgument naming them otherwise.
// seq_len <= window gives one window [0, seq_len).
absl::StatusOr<std::vector<Window>> PlanWindows(int64_t seq_len, int64_t window, int64_t stride);

// For each token [seq_len], the index of the window its vector is taken from (the rule above).
std::vector<int> AssignTokensToWindows(const std::vector<Window>& windows, int64_t seq_len, bool causal);

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_SLIDING_WINDOW_H_
