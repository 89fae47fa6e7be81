// Normalizers run one after another (Hugging Face's normalizer Sequence when one of its steps is not an ICU step,
// e.g. [Precompiled, NFKC]), and the composition of offset maps that it needs.
//
//   std::vector<std::unique_ptr<Normalizer>> steps;  // e.g. a PrecompiledNormalizer, then MakeNormalizer("nfkc")
//   NormalizerChain chain(std::move(steps));
//   TOKVEC_ASSIGN_OR_RETURN(NormalizedText out, chain.Normalize(text));  // offsets point into `text`
#ifndef TOKVEC_TOKENIZER_NORMALIZERS_SEQUENCE_NORMALIZER_H_
#define TOKVEC_TOKENIZER_NORMALIZERS_SEQUENCE_NORMALIZER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/normalizers/normalizer.h"

namespace tokvec {

// `outer` maps `inner`'s input (outer.text) to some source: the result is inner's text mapped to that source. A
// byte of `inner` with an empty range (inserted text) gets the empty range where it was inserted.
// `source_size`: the size of the source (where text inserted at the very end points).
NormalizedText ComposeNormalized(const NormalizedText& outer, NormalizedText inner, size_t source_size);

// The identity map of `text`.
NormalizedText IdentityNormalized(std::string_view text);

class NormalizerChain : public Normalizer {
 public:
  explicit NormalizerChain(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  absl::StatusOr<NormalizedText> Normalize(std::string_view text) const override;
  // The steps' names joined by '+'.
  std::string name() const override;

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_NORMALIZERS_SEQUENCE_NORMALIZER_H_
