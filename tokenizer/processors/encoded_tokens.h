// The tokens of an encoding with everything Hugging Face's Encoding carries per token but the spellings: ids, type
// (segment) ids, which text each came from, offsets, and the special-token and attention masks, plus the windows
// truncation cut off (`overflowing`). Truncation (truncation.h) and padding (padding.h) work on it; the facade
// builds it (tokenizer/sequence_encoding.h).
#ifndef TOKVEC_TOKENIZER_PROCESSORS_ENCODED_TOKENS_H_
#define TOKVEC_TOKENIZER_PROCESSORS_ENCODED_TOKENS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/tokenizer_model.h"

namespace tokvec {

struct EncodedTokens {
  std::vector<TokenId> ids;
  std::vector<uint32_t> type_ids;            // [size()]
  // [size()] 0 (text a), 1 (text b), -1 (added or padding), as Hugging Face's Encoding::get_sequence_ids reads
  // `sequence_ranges` (FillSequenceIds): kept up to date by the operations below only through the ranges.
  std::vector<int> sequence_ids;
  std::vector<int32_t> word_ids;             // [size()] the word in its text (Encoding::words); -1: added, padding
  std::vector<Offset> offsets;               // [size()] bytes of the token's own text; (0, 0) when added
  // [size()] the text the offsets count in: 0 (a) or 1 (b); 0 for added and padding tokens. Not sequence_ids: a
  // pair's overflowing windows give text b's tokens sequence id 0 or -1, as Hugging Face's ranges do.
  std::vector<uint8_t> offset_texts;
  std::vector<uint8_t> special_tokens_mask;  // [size()] 1 for added and padding tokens
  std::vector<uint8_t> attention_mask;       // [size()] 0 for padding
  std::vector<EncodedTokens> overflowing;        // Windows truncation cut off, in order.
  bool truncated = false;                        // Truncation took tokens away (into windows, or for good).
  // Hugging Face's sequence_ranges: which tokens belong to text 0 and text 1, when the post-processor said so.
  std::map<int, std::pair<size_t, size_t>> sequence_ranges;

  size_t size() const { return ids.size(); }

  // Tokens of text `sequence` with `type_id` (masks: not special, attended); `words` as Encoding::words, or empty.
  static EncodedTokens OfText(std::vector<TokenId> ids, std::vector<Offset> offsets, std::vector<int32_t> words,
                              int sequence, uint32_t type_id) {
    EncodedTokens rows;
    const size_t n = ids.size();
    rows.ids = std::move(ids);
    rows.offsets = std::move(offsets);
    rows.offsets.resize(n, Offset{0, 0});
    rows.word_ids = std::move(words);
    rows.word_ids.resize(n, -1);
    rows.type_ids.assign(n, type_id);
    rows.sequence_ids.assign(n, sequence);
    rows.offset_texts.assign(n, sequence == 1 ? 1 : 0);
    rows.special_tokens_mask.assign(n, 0);
    rows.attention_mask.assign(n, 1);
    return rows;
  }
  // Rows [begin, end), without overflowing windows or sequence ranges (Hugging Face's truncate drops them).
  EncodedTokens Slice(size_t begin, size_t end) const {
    EncodedTokens rows;
    rows.ids.assign(ids.begin() + begin, ids.begin() + end);
    rows.type_ids.assign(type_ids.begin() + begin, type_ids.begin() + end);
    rows.sequence_ids.assign(sequence_ids.begin() + begin, sequence_ids.begin() + end);
    rows.word_ids.assign(word_ids.begin() + begin, word_ids.begin() + end);
    rows.offsets.assign(offsets.begin() + begin, offsets.begin() + end);
    rows.offset_texts.assign(offset_texts.begin() + begin, offset_texts.begin() + end);
    rows.special_tokens_mask.assign(special_tokens_mask.begin() + begin, special_tokens_mask.begin() + end);
    rows.attention_mask.assign(attention_mask.begin() + begin, attention_mask.begin() + end);
    return rows;
  }
  // Appends the rows of `other` (not its overflowing windows), its sequence ranges moved past ours.
  void Append(const EncodedTokens& other) {
    for (const auto& [sequence, range] : other.sequence_ranges) {
      sequence_ranges[sequence] = {range.first + size(), range.second + size()};
    }
    ids.insert(ids.end(), other.ids.begin(), other.ids.end());
    type_ids.insert(type_ids.end(), other.type_ids.begin(), other.type_ids.end());
    sequence_ids.insert(sequence_ids.end(), other.sequence_ids.begin(), other.sequence_ids.end());
    word_ids.insert(word_ids.end(), other.word_ids.begin(), other.word_ids.end());
    offsets.insert(offsets.end(), other.offsets.begin(), other.offsets.end());
    offset_texts.insert(offset_texts.end(), other.offset_texts.begin(), other.offset_texts.end());
    special_tokens_mask.insert(special_tokens_mask.end(), other.special_tokens_mask.begin(),
                               other.special_tokens_mask.end());
    attention_mask.insert(attention_mask.end(), other.attention_mask.begin(), other.attention_mask.end());
  }
  // Appends one token the post-processor adds.
  void AppendAdded(TokenId id, uint32_t type_id) {
    ids.push_back(id);
    type_ids.push_back(type_id);
    sequence_ids.push_back(-1);
    word_ids.push_back(-1);
    offsets.push_back(Offset{0, 0});
    offset_texts.push_back(0);
    special_tokens_mask.push_back(1);
    attention_mask.push_back(1);
  }
  // Marks every token as text `sequence`'s (Hugging Face's set_sequence_id), its windows too when `windows`.
  void SetSequence(int sequence, bool windows) {
    sequence_ranges[sequence] = {0, size()};
    if (!windows) return;
    for (EncodedTokens& window : overflowing) window.SetSequence(sequence, true);
  }
  // sequence_ids from sequence_ranges, windows included, as Hugging Face reads them: with no range every token is
  // text 0's; else texts 0 to (number of ranges - 1) take their range (the whole encoding when a text has none),
  // the rest is -1.
  void FillSequenceIds() {
    const size_t texts = sequence_ranges.empty() ? 1 : sequence_ranges.size();
    sequence_ids.assign(size(), -1);
    for (size_t text = 0; text < texts; ++text) {
      auto it = sequence_ranges.find(static_cast<int>(text));
      const std::pair<size_t, size_t> range = it != sequence_ranges.end() ? it->second : std::make_pair(size_t{0}, size());
      for (size_t i = range.first; i < range.second && i < size(); ++i) sequence_ids[i] = static_cast<int>(text);
    }
    for (EncodedTokens& window : overflowing) window.FillSequenceIds();
  }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PROCESSORS_ENCODED_TOKENS_H_
