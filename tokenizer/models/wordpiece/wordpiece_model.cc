#include "tokenizer/models/wordpiece/wordpiece_model.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// Start of the UTF-8 sequence holding the byte before `end` (continuation bytes are 10xxxxxx).
size_t PreviousBoundary(std::string_view text, size_t end) {
  size_t at = end - 1;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

absl::StatusOr<WordPieceModel> WordPieceModel::Create(std::vector<std::pair<std::string, TokenId>> vocab,
                                                      Options options) {
  WordPieceModel model;
  TOKVEC_ASSIGN_OR_RETURN(model.table_, SpellingTable::Create(std::move(vocab), "WordPiece"));
  model.options_ = std::move(options);
  const std::string& prefix = model.options_.continuing_subword_prefix;
  for (const auto& [spelling, id] : model.table_.ids()) {
    model.max_token_bytes_ = std::max(model.max_token_bytes_, spelling.size());
    if (!prefix.empty() && spelling.size() > prefix.size() && spelling.compare(0, prefix.size(), prefix) == 0) {
      model.continuation_.emplace(spelling.substr(prefix.size()), id);
    }
  }
  std::optional<TokenId> unk = model.Find(model.options_.unk_token);
  if (!unk) {
    return absl::InvalidArgumentError(
        fmt::format("the unk token '{}' is not in the vocabulary", model.options_.unk_token));
  }
  model.unk_id_ = *unk;
  return model;
}

void WordPieceModel::Tokenize(std::string_view word, size_t begin, std::vector<BpeModel::Symbol>* out) const {
  const size_t first = out->size();
  // 1. Too many code points: unk (counting stops once past the limit).
  size_t chars = 0;
  for (size_t i = 0; i < word.size() && chars <= options_.max_input_chars_per_word; ++i) {
    if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) ++chars;
  }
  if (chars > options_.max_input_chars_per_word) {
    out->push_back({unk_id_, begin});
    return;
  }
  // 2. Longest match first from `start`; a continuation (start > 0) is looked up with the prefix, which is
  // the lookup of the prefix-less rest in continuation_. A bare prefix token ("##") never matches: the rest
  // would be empty.
  const std::string& prefix = options_.continuing_subword_prefix;
  for (size_t start = 0; start < word.size();) {
    const bool continues = start > 0 && !prefix.empty();
    const SpellingTable::Map& table = continues ? continuation_ : table_.ids();
    const size_t longest = continues ? max_token_bytes_ - std::min(max_token_bytes_, prefix.size()) : max_token_bytes_;
    size_t end = word.size();
    if (end - start > longest) {
      end = start + longest + 1;  // One past, so that the first step back lands on a boundary.
      end = end < word.size() ? PreviousBoundary(word, end) : word.size();
    }
    std::optional<TokenId> match;
    while (end > start) {
      auto it = table.find(absl::string_view(word.data() + start, end - start));
      if (it != table.end()) {
        match = it->second;
        break;
      }
      end = PreviousBoundary(word, end);
    }
    if (!match) {  // 3. No token fits here: the whole word is unk.
      out->resize(first);
      out->push_back({unk_id_, begin});
      return;
    }
    out->push_back({*match, begin + start});
    start = end;
  }
}

}  // namespace tokvec
