// Unigram (unigram_model.h) behind TokenizerModel (models/tokenizer_model.h): each pre-tokenizer piece is cut into
// its best-scoring segmentation; tokens are spellings ("▁he"), decoded by the tokenizer's decoder chain.
#ifndef TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_TOKENIZER_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_TOKENIZER_MODEL_H_

#include "tokenizer/models/tokenizer_model.h"
#include "tokenizer/models/unigram/unigram_model.h"

namespace tokvec {

class UnigramTokenizerModel final : public TokenizerModel {
 public:
  // `has_affixes`: the spec names BPE word affixes, which Unigram cannot take (Check's error).
  UnigramTokenizerModel(const UnigramModel& model, bool has_affixes) : model_(model), has_affixes_(has_affixes) {}

  ModelType type() const override { return ModelType::kUnigram; }
  size_t size() const override { return model_.size(); }
  absl::Status Check(size_t vocab_size, bool has_decoder) const override;
  std::string_view utf8_name() const override { return "Unigram"; }
  // Byte-fallback tokens of one unknown stretch share its start and each covers the stretch (Hugging Face's
  // offsets).
  absl::Status EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                            TokenSink out) const override;
  std::string Spelling(TokenId id) const override;
  std::optional<TokenId> FindSpelling(std::string_view spelling) const override;
  bool IsGap(TokenId id) const override { return id >= model_.size(); }
  bool SpelledTokens() const override { return true; }
  ModelSummary Describe() const override;
  absl::StatusOr<std::string> HfModelJson() const override;

 private:
  const UnigramModel& model_;
  bool has_affixes_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_TOKENIZER_MODEL_H_
