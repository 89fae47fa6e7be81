#include "tokenizer/pre_tokenizers/split_behavior.h"

#include <algorithm>

namespace tokvec {

std::optional<SplitBehavior> ParseSplitBehavior(std::string_view name) {
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  return std::nullopt;
}

std::string_view SplitBehaviorName(SplitBehavior behavior) {
  switch (behavior) {
    case SplitBehavior::kRemoved:
      return "Removed";
    case SplitBehavior::kIsolated:
      return "Isolated";
    case SplitBehavior::kMergedWithPrevious:
      return "MergedWithPrevious";
    case SplitBehavior::kMergedWithNext:
      return "MergedWithNext";
    case SplitBehavior::kContiguous:
      return "Contiguous";
  }
  return "?";
}

void ApplySplitBehavior(const std::vector<SplitSegment>& segments, SplitBehavior behavior, bool invert,
                        std::vector<Piece>* pieces) {
  auto matched = [&](const SplitSegment& s) { return s.is_match != invert; };
  auto emit = [&](size_t begin, size_t end) {
    if (end > begin) pieces->push_back({begin, end});
  };
  if (behavior == SplitBehavior::kRemoved || behavior == SplitBehavior::kIsolated) {
    for (const SplitSegment& s : segments) {
      if (behavior == SplitBehavior::kIsolated || !matched(s)) emit(s.begin, s.end);
    }
    return;
  }
  // The merging behaviours: runs of segments that become one piece. MergedWithNext walks backwards.
  std::vector<Piece> merged;
  bool previous_match = false;
  auto step = [&](const SplitSegment& s, bool forward) {
    const bool match = matched(s);
    const bool join = behavior == SplitBehavior::kContiguous ? match == previous_match : match && !previous_match;
    if (join && !merged.empty()) {
      if (forward) {
        merged.back().end = s.end;
      } else {
        merged.back().begin = s.begin;
      }
    } else {
      merged.push_back({s.begin, s.end});
    }
    previous_match = match;
  };
  if (behavior == SplitBehavior::kMergedWithNext) {
    for (auto it = segments.rbegin(); it != segments.rend(); ++it) step(*it, /*forward=*/false);
    std::reverse(merged.begin(), merged.end());
  } else {
    for (const SplitSegment& s : segments) step(s, /*forward=*/true);
  }
  for (const Piece& piece : merged) emit(piece.begin, piece.end);
}

}  // namespace tokvec
