// WordPiece (wordpiece_model.h) behind TokenizerModel (models/tokenizer_model.h): each pre-tokenizer piece is a
// word cut greedily into vocabulary tokens; tokens are spellings ("##ing"), decoded by the WordPiece decoder.
#ifndef TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_TOKENIZER_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_TOKENIZER_MODEL_H_

#include "tokenizer/models/tokenizer_model.h"
#include "tokenizer/models/wordpiece/wordpiece_model.h"

namespace tokvec {

class WordPieceTokenizerModel final : public TokenizerModel {
 public:
  // `has_affixes`: the spec names BPE word affixes, which WordPiece cannot take (Check's error).
  WordPieceTokenizerModel(const WordPieceModel& model, bool has_affixes)
      : model_(model), has_affixes_(has_affixes) {}

  ModelType type() const override { return ModelType::kWordPiece; }
  size_t size() const override { return model_.size(); }
  absl::Status Check(size_t vocab_size, bool has_decoder) const override;
  std::string_view utf8_name() const override { return "WordPiece"; }
  absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                            TokenSink out) const override;
  bool CutsNormalizedText() const override { return true; }
  std::string Spelling(TokenId id) const override;
  std::optional<TokenId> FindSpelling(std::string_view spelling) const override;
  bool IsGap(TokenId id) const override { return id >= model_.size() || model_.token(id).empty(); }
  bool SpelledTokens() const override { return true; }
  ModelSummary Describe() const override;
  absl::StatusOr<std::string> HfModelJson() const override;

 private:
  const WordPieceModel& model_;
  bool has_affixes_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_TOKENIZER_MODEL_H_
