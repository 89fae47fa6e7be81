// WordPiece (Schuster & Nakajima 2012; BERT, Devlin et al. 2018) as Hugging Face tokenizers runs it: each word
// (a pre-tokenizer piece) is cut greedily, longest match first, from its start; pieces after the first are
// looked up with the continuing-subword prefix ("##"). A word with more than max_input_chars_per_word code
// points, or one that cannot be cut into vocabulary tokens all the way, is the single unk token.
//
//   vocab {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3}
//   Tokenize("unaffable") -> 1 2 3      Tokenize("unafx") -> 0 (covering the whole word)
//
// Immutable after Create; Tokenize keeps no state, so any number of threads may share one model.
#ifndef TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_MODEL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/spelling_table.h"

namespace tokvec {

class WordPieceModel {
 public:
  struct Options {
    std::string unk_token = "[UNK]";
    std::string continuing_subword_prefix = "##";
    size_t max_input_chars_per_word = 100;
  };
  // `vocab` holds (spelling, id) pairs. Errors (InvalidArgument): SpellingTable::Create's (models/spelling_table.h),
  // an unk token that is not in the vocabulary.
  static absl::StatusOr<WordPieceModel> Create(std::vector<std::pair<std::string, TokenId>> vocab,
                                               Options options);
  WordPieceModel() = default;

  // Appends the tokens of `word` (UTF-8, not empty), each with the offset where it starts, counted from
  // `begin`; the unk token starts at `begin` and covers the whole word.
  void Tokenize(std::string_view word, size_t begin, std::vector<BpeModel::Symbol>* out) const;

  // One past the largest id.
  size_t size() const { return table_.size(); }
  // The spelling of `id` ("##ing" for a continuation), empty for an id no token has.
  const std::string& token(TokenId id) const { return table_.token(id); }
  std::optional<TokenId> Find(std::string_view spelling) const { return table_.Find(spelling); }
  TokenId unk_id() const { return unk_id_; }
  const Options& options() const { return options_; }

 private:
  Options options_;
  SpellingTable table_;                                      // Every token, by id and by spelling.
  absl::flat_hash_map<std::string, TokenId> continuation_;   // Tokens that start with the prefix, without it.
  TokenId unk_id_ = 0;
  size_t max_token_bytes_ = 0;  // The longest spelling: no match is longer, so the search starts there.
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_MODEL_H_
