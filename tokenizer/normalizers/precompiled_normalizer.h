// SentencePiece's precompiled normalization rules (Hugging Face's "Precompiled" normalizer, in T5, XLM-R, ALBERT
// and Marian tokenizer.json files as base64 `precompiled_charsmap`).
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> n, PrecompiledNormalizer::FromBase64(charsmap));
//   TOKVEC_ASSIGN_OR_RETURN(NormalizedText out, n->Normalize("ｈｉ①"));  // nmt_nfkc's rules: "hi1"
//
// The blob (SentencePiece normalizer.cc) is a little-endian uint32 trie size in bytes, then a darts-clone double
// array of that many bytes (uint32 units) mapping UTF-8 keys to offsets in the rest, a pool of NUL-terminated
// replacement strings. As Hugging Face applies it: text is cut into extended grapheme clusters (ICU); a cluster
// shorter than 6 bytes that has a key as a prefix is replaced whole by the replacement of its SHORTEST such
// prefix; otherwise each character of the cluster that is itself a key (again the shortest prefix of it) is
// replaced, the others are kept.
//
// Malformed blobs (short header, a trie size past the end, a pool that is not UTF-8) fail at load; a trie whose
// links point outside it simply matches nothing there (every access is bounds-checked).
#ifndef TOKVEC_TOKENIZER_NORMALIZERS_PRECOMPILED_NORMALIZER_H_
#define TOKVEC_TOKENIZER_NORMALIZERS_PRECOMPILED_NORMALIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/normalizers/normalizer.h"

namespace tokvec {

class PrecompiledNormalizer : public Normalizer {
 public:
  // Errors (InvalidArgument): not base64, or a malformed blob (see above), with what is wrong.
  static absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> FromBase64(std::string_view base64);
  static absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> FromBlob(std::string_view blob);

  absl::StatusOr<NormalizedText> Normalize(std::string_view text) const override;
  std::string name() const override { return "precompiled"; }

  // The replacement of the shortest key that is a prefix of `key`, nullopt when none is.
  std::optional<std::string_view> Transform(std::string_view key) const;

 private:
  std::vector<uint32_t> units_;
  std::string pool_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_NORMALIZERS_PRECOMPILED_NORMALIZER_H_
