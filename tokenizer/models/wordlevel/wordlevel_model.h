// WordLevel as Hugging Face tokenizers runs it: each word (a pre-tokenizer piece) is one token, looked up whole in
// the vocabulary; a word the vocabulary lacks is the unk token, and with no unk token in the vocabulary it is an
// error (Hugging Face's "Missing [UNK] token from the vocabulary"). Word-level and custom tokenizers use it.
//
//   vocab {"<unk>": 0, "the": 1, "cat": 2}, unk_token "<unk>"
//   Find("cat") -> 2      Lookup("dog") -> 0 (the unk id)
//
// Immutable after Create, so any number of threads may share one model.
#ifndef TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_MODEL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/spelling_table.h"

namespace tokvec {

class WordLevelModel {
 public:
  // `vocab` holds (spelling, id) pairs; ids may leave gaps. `unk_token` need not be in the vocabulary (then a word
  // outside it cannot be encoded). Errors: SpellingTable::Create's (models/spelling_table.h).
  static absl::StatusOr<WordLevelModel> Create(std::vector<std::pair<std::string, TokenId>> vocab,
                                               std::string unk_token);
  WordLevelModel() = default;

  // The id of `word`, else the unk id, else nullopt (no unk token in the vocabulary).
  std::optional<TokenId> Lookup(std::string_view word) const {
    std::optional<TokenId> id = Find(word);
    return id ? id : unk_id_;
  }
  // The id of the token spelled `spelling`, else nullopt.
  std::optional<TokenId> Find(std::string_view spelling) const { return table_.Find(spelling); }

  // One past the largest id.
  size_t size() const { return table_.size(); }
  // The spelling of `id`, empty for an id no token has.
  const std::string& token(TokenId id) const { return table_.token(id); }
  const std::string& unk_token() const { return unk_token_; }
  std::optional<TokenId> unk_id() const { return unk_id_; }

 private:
  SpellingTable table_;
  std::string unk_token_ = "<unk>";
  std::optional<TokenId> unk_id_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_MODEL_H_
