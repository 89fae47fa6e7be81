// What Hugging Face's Split-style pre-tokenizers do with the matches of their pattern (SplitDelimiterBehavior):
// the pattern cuts a piece into segments that are matches or not, covering it in order; the behaviour turns
// the segments into pieces.
//
//   std::vector<SplitSegment> segments = {{0, 3, false}, {3, 4, true}, {4, 7, false}};  // "How are"
//   std::vector<Piece> pieces;
//   ApplySplitBehavior(segments, SplitBehavior::kMergedWithPrevious, /*invert=*/false, &pieces);  // "How " "are"
//
// Behaviours (tokenizers/src/tokenizer/normalizer.rs, NormalizedString::split):
//   Removed             matches are dropped, the rest are pieces
//   Isolated            every segment is a piece
//   MergedWithPrevious  a match joins the segment before it (unless that is a match too)
//   MergedWithNext      a match joins the segment after it (unless that is a match too)
//   Contiguous          consecutive segments of the same kind (adjacent matches) join
// `invert` swaps match and non-match first. Empty segments (a regex may match the empty string) take part in
// the merging, as in Hugging Face, and empty pieces are dropped at the end.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_SPLIT_BEHAVIOR_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_SPLIT_BEHAVIOR_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// Hugging Face's name ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"), else nullopt.
std::optional<SplitBehavior> ParseSplitBehavior(std::string_view name);
std::string_view SplitBehaviorName(SplitBehavior behavior);

// A byte range of the text and whether the pattern matched it.
struct SplitSegment {
  size_t begin;
  size_t end;
  bool is_match;
};

// Appends the non-empty pieces that `behavior` makes of `segments` (in order, covering the piece) to `pieces`.
void ApplySplitBehavior(const std::vector<SplitSegment>& segments, SplitBehavior behavior, bool invert,
                        std::vector<Piece>* pieces);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_SPLIT_BEHAVIOR_H_
