// The vocabulary of the models whose tokens are looked up by their whole spelling (WordPiece, WordLevel): each id's
// spelling and each spelling's id, built from (spelling, id) pairs that must name every token once. Ids may leave
// gaps (an id no token has spells as ""), as Hugging Face's vocabularies may.
//
//   TOKVEC_ASSIGN_OR_RETURN(SpellingTable table, SpellingTable::Create({{"[UNK]", 0}, {"cat", 2}}, "WordLevel"));
//   table.size() == 3;  table.token(1).empty();  table.Find("cat") == 2;
#ifndef TOKVEC_TOKENIZER_MODELS_SPELLING_TABLE_H_
#define TOKVEC_TOKENIZER_MODELS_SPELLING_TABLE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/text/flat_vocab.h"

namespace tokvec {

class SpellingTable {
 public:
  using Map = absl::flat_hash_map<std::string, TokenId>;

  // Errors (InvalidArgument; `kind` names the model in the first): an empty vocabulary, an empty spelling, two
  // spellings with one id, one spelling twice, an id far beyond the vocabulary size.
  static absl::StatusOr<SpellingTable> Create(std::vector<std::pair<std::string, TokenId>> vocab,
                                              std::string_view kind);
  SpellingTable() = default;

  // One past the largest id.
  size_t size() const { return tokens_.size(); }
  // The spelling of `id` (< size()), empty for an id no token has.
  const std::string& token(TokenId id) const { return tokens_[id]; }
  std::optional<TokenId> Find(std::string_view spelling) const {
    auto it = ids_.find(absl::string_view(spelling.data(), spelling.size()));
    return it == ids_.end() ? std::nullopt : std::optional<TokenId>(it->second);
  }
  // Every token by its spelling.
  const Map& ids() const { return ids_; }

 private:
  std::vector<std::string> tokens_;  // [size()] spelling of each id.
  Map ids_;
};

// The pairs of a tokenizer.json's model.vocab read into flat arrays, with ids checked to be token ids (an error
// names the key "model.vocab.SPELLING" in `path`).
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> HfVocabPairs(const FlatVocab& flat,
                                                                          const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_SPELLING_TABLE_H_
