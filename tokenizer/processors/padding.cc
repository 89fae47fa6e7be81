#include "tokenizer/processors/padding.h"

#include <algorithm>

namespace tokvec {

size_t PaddedLength(absl::Span<const size_t> lengths, const PaddingParams& params) {
  size_t length = 0;
  if (params.fixed_length) {
    length = *params.fixed_length;
  } else {
    for (size_t n : lengths) length = std::max(length, n);
  }
  const size_t multiple = params.pad_to_multiple_of.value_or(0);
  if (multiple > 0 && length % multiple != 0) length += multiple - length % multiple;
  return length;
}

void PadRows(EncodedTokens* rows, size_t length, const PaddingParams& params) {
  for (EncodedTokens& window : rows->overflowing) PadRows(&window, length, params);
  if (rows->size() >= length) return;
  const size_t n = length - rows->size();
  const bool left = params.direction == PaddingSide::kLeft;
  auto pad = [&](auto& column, auto value) {
    column.insert(left ? column.begin() : column.end(), n, value);
  };
  pad(rows->ids, params.pad_id);
  pad(rows->type_ids, params.pad_type_id);
  pad(rows->sequence_ids, -1);
  pad(rows->word_ids, int32_t{-1});
  pad(rows->offsets, Offset{0, 0});
  pad(rows->offset_texts, uint8_t{0});
  pad(rows->special_tokens_mask, uint8_t{1});
  pad(rows->attention_mask, uint8_t{0});
  if (left) {
    for (auto& [sequence, range] : rows->sequence_ranges) range = {range.first + n, range.second + n};
  }
}

}  // namespace tokvec
