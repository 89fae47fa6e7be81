// Truncation as Hugging Face's tokenizers applies it (tokenizers/src/utils/truncation.rs, Encoding::truncate): a
// text longer than max_length keeps max_length tokens from its start (right) or end (left); the rest is cut into
// windows of max_length tokens that overlap by `stride` (Hugging Face's overflowing encodings, as
// return_overflowing_tokens gives them). For a pair, LongestFirst shortens the longer text first (both to about
// half when both are long), OnlyFirst / OnlySecond only one of them. The facade budgets the post-processor's tokens
// (max_length less the tokens it adds) before calling, as Hugging Face does.
//
//   EncodedTokens text = ...;                                  // 10 tokens
//   TruncateWindows(&text, 4, 1, TruncationSide::kRight);  // text: 0-3; overflowing: 3-6, 6-9, 9-10
#ifndef TOKVEC_TOKENIZER_PROCESSORS_TRUNCATION_H_
#define TOKVEC_TOKENIZER_PROCESSORS_TRUNCATION_H_

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "tokenizer/processors/encoded_tokens.h"

namespace tokvec {

enum class TruncationSide { kRight, kLeft };
enum class TruncationStrategy { kLongestFirst, kOnlyFirst, kOnlySecond };

struct TruncationParams {
  size_t max_length = 512;
  size_t stride = 0;
  TruncationStrategy strategy = TruncationStrategy::kLongestFirst;
  TruncationSide direction = TruncationSide::kRight;
};

// Hugging Face's names: "LongestFirst", "OnlyFirst", "OnlySecond"; "Right", "Left".
std::string_view TruncationStrategyName(TruncationStrategy strategy);
std::string_view TruncationSideName(TruncationSide side);

// Keeps `max_length` tokens of `rows` (its start for kRight, its end for kLeft) and puts the windows of the rest in
// rows->overflowing (each `max_length` long but the last, overlapping the one before by `stride`; kLeft walks back
// from the end). max_length 0 moves every token into one overflowing window. Nothing changes when rows is not
// longer than max_length. Error (InvalidArgument): stride >= max_length > 0 when rows must be cut.
absl::Status TruncateWindows(EncodedTokens* rows, size_t max_length, size_t stride, TruncationSide side);

// Truncates text a (and b when not null) together to params.max_length tokens by params.strategy. Errors
// (InvalidArgument): OnlySecond without b ("second sequence not provided"), OnlyFirst / OnlySecond when that text
// is too short to lose enough tokens, TruncateWindows's.
absl::Status TruncateSequences(EncodedTokens* a, EncodedTokens* b, const TruncationParams& params);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PROCESSORS_TRUNCATION_H_
