// WordLevel (wordlevel_model.h) behind TokenizerModel (models/tokenizer_model.h): each pre-tokenizer piece is one
// token, covering the whole piece; tokens are spellings, decoded by the tokenizer.json decoder chain (none joins
// them with spaces).
#ifndef TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_TOKENIZER_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_TOKENIZER_MODEL_H_

#include "tokenizer/models/tokenizer_model.h"
#include "tokenizer/models/wordlevel/wordlevel_model.h"

namespace tokvec {

class WordLevelTokenizerModel final : public TokenizerModel {
 public:
  // `has_affixes`: the spec names BPE word affixes, which WordLevel cannot take (Check's error).
  WordLevelTokenizerModel(const WordLevelModel& model, bool has_affixes) : model_(model), has_affixes_(has_affixes) {}

  ModelType type() const override { return ModelType::kWordLevel; }
  size_t size() const override { return model_.size(); }
  absl::Status Check(size_t vocab_size, bool has_decoder) const override;
  std::string_view utf8_name() const override { return "WordLevel"; }
  // Error (InvalidArgument) for a piece outside the vocabulary when the unk token is not in it either.
  absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                            TokenSink out) const override;
  std::string Spelling(TokenId id) const override;
  std::optional<TokenId> FindSpelling(std::string_view spelling) const override { return model_.Find(spelling); }
  bool IsGap(TokenId id) const override { return id >= model_.size() || model_.token(id).empty(); }
  bool SpelledTokens() const override { return true; }
  ModelSummary Describe() const override;
  absl::StatusOr<std::string> HfModelJson() const override;

 private:
  const WordLevelModel& model_;
  bool has_affixes_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_TOKENIZER_MODEL_H_
