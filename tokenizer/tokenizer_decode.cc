// Tokenizer::Decode with DecodeOptions: skip_special_tokens drops special tokens before the decoder runs, as
// Hugging Face's decode(ids, skip_special_tokens=True) does (so a WordPiece decoder's first token is the first
// one kept).
//
//   tokenizer->Decode(ids, {.skip_special_tokens = true});   // "[CLS] hello [SEP]" ids -> "hello"
#include <string>
#include <unordered_set>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tokvec {

absl::StatusOr<std::string> Tokenizer::Decode(absl::Span<const TokenId> ids, const DecodeOptions& options) const {
  if (!options.skip_special_tokens) return Decode(ids);
  std::unordered_set<TokenId> special_ids;
  std::unordered_set<std::string> special_texts;
  for (const SpecialToken& token : spec_.special_tokens) {
    if (!token.special) continue;
    special_ids.insert(token.id);
    special_texts.insert(token.text);
  }
  std::vector<TokenId> kept;
  kept.reserve(ids.size());
  for (const TokenId id : ids) {
    // An id outside the vocabulary is kept, so that Decode reports it.
    const bool skip = id < vocab_size_ && (special_ids.count(id) > 0 ||
                                           (!special_texts.empty() && special_texts.count(TokenSpelling(id)) > 0));
    if (!skip) kept.push_back(id);
  }
  return Decode(kept);
}

}  // namespace tokvec
