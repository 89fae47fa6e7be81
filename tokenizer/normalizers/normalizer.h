// Optional Unicode normalization before pre-tokenization (ICU): NFC, NFKC, lowercase.
//
// Normalization may change lengths, so the result keeps, for each of its bytes, the range of input bytes it
// came from; token offsets are mapped back through it and always point into the original input.
#ifndef TOKVEC_TOKENIZER_NORMALIZERS_NORMALIZER_H_
#define TOKVEC_TOKENIZER_NORMALIZERS_NORMALIZER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tokvec {

struct NormalizedText {
  std::string text;                 // The normalized bytes.
  std::vector<size_t> source_begin;  // [text.size()] input offset where the chunk producing each byte begins.
  std::vector<size_t> source_end;    // [text.size()] input offset where that chunk ends.
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual absl::StatusOr<NormalizedText> Normalize(std::string_view text) const = 0;
  // True when normalizing text[0, p) and text[p, ...) on their own gives the normalization of the whole whenever
  // text[p] is the ASCII byte `ascii` (for counting a corpus in chunks, word_counter.h, and for encoding WordPiece
  // text in chunks, Tokenizer::FindCut); false when unknown.
  virtual bool CutsBefore(char /*ascii*/) const { return false; }
  // How the model file names it, e.g. "nfkc" or "nfc+lowercase".
  virtual std::string name() const = 0;
  // The steps of an ICU normalizer (icu_normalizer.h) by MakeNormalizer's names, e.g. {"nfc", "prefix_space"}, for
  // writers of other formats; empty for the other kinds.
  virtual std::vector<std::string> IcuSteps() const { return {}; }
  // What `normalized` added tokens are matched in: this normalization without its prefix_space step (Hugging
  // Face's ByteLevel adds that space in the pre-tokenizer, after added tokens are matched). Null when nothing
  // is left, and for the kinds that do not say (then they are matched in the input).
  virtual std::unique_ptr<Normalizer> WithoutPrefixSpace() const { return nullptr; }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_NORMALIZERS_NORMALIZER_H_
