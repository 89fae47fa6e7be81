// Padding as Hugging Face's tokenizers applies it (tokenizers/src/utils/padding.rs, Encoding::pad): every encoding
// of a batch is made as long as the longest (BatchLongest; one encoding alone: its own length) or as a fixed
// length, rounded up to a multiple of pad_to_multiple_of, by pad tokens (pad_id, pad_type_id; attention 0,
// special 1, offsets (0, 0)) on the right or the left. An encoding already that long or longer is left alone.
// Overflowing windows are padded to the same length.
//
//   PaddingParams params{.fixed_length = 8, .pad_id = 0};
//   PadRows(&rows, PaddedLength({rows.size()}, params), params);
#ifndef TOKVEC_TOKENIZER_PROCESSORS_PADDING_H_
#define TOKVEC_TOKENIZER_PROCESSORS_PADDING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "tokenizer/processors/encoded_tokens.h"

namespace tokvec {

enum class PaddingSide { kRight, kLeft };

struct PaddingParams {
  std::optional<size_t> fixed_length;  // Fixed(n); none: BatchLongest.
  PaddingSide direction = PaddingSide::kRight;
  std::optional<size_t> pad_to_multiple_of;  // 0 or none: no rounding.
  TokenId pad_id = 0;
  uint32_t pad_type_id = 0;
  std::string pad_token = "[PAD]";
};

// The length a batch whose encodings have `lengths` tokens is padded to.
size_t PaddedLength(absl::Span<const size_t> lengths, const PaddingParams& params);

// Pads `rows` and its overflowing windows to `length` tokens.
void PadRows(EncodedTokens* rows, size_t length, const PaddingParams& params);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PROCESSORS_PADDING_H_
