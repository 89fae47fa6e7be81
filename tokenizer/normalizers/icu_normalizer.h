// Unicode normalization before pre-tokenization, by ICU: NFC, NFKC, NFD, NFKD, lowercase, and combinations.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> normalizer, MakeNormalizer("nfkc+lowercase"));
//   TOKVEC_ASSIGN_OR_RETURN(NormalizedText out, normalizer->Normalize("Ｈｅｌｌｏ"));  // out.text == "hello"
//
// Names: "nfc", "nfkc" (Unicode Standard Annex #15), "lowercase" (full case mapping, code point by code point,
// as Rust's char::to_lowercase used by Hugging Face's Lowercase: "Σ" is always "σ", never the final "ς"), and
// "prefix_space" (Hugging Face's ByteLevel add_prefix_space: a space is put before text that does not start
// with one). For Hugging Face's BERT normalizers: "nfd", "nfkd", "strip_accents" (StripAccents: removes
// nonspacing marks), "bert_clean" (BertNormalizer clean_text: drops NUL, U+FFFD and control characters, turns
// white space into ' '), "bert_chinese" (handle_chinese_chars: a space on each side of a CJK ideograph) and
// "bert_strip_accents" (BertNormalizer strip_accents: removes category Mn only, where StripAccents removes every
// combining mark);
// their classes are tokenizer/text/bert_unicode.h's. Combine them with '+', applied left to right: "nfc+lowercase".
// "none" or "" means no normalizer.
//
// Offsets: ICU reports which input spans changed (icu::Edits); an unchanged byte maps to itself and every byte
// of a changed span maps to the whole input span it came from, so token offsets point into the original input.
// Bytes that are not well-formed UTF-8 are copied unchanged (each maps to itself).
#ifndef TOKVEC_TOKENIZER_NORMALIZERS_ICU_NORMALIZER_H_
#define TOKVEC_TOKENIZER_NORMALIZERS_ICU_NORMALIZER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tokenizer/normalizers/normalizer.h"

namespace tokvec {

// nullptr for "" or "none". Errors: an unknown step (InvalidArgument naming it and listing the known ones).
absl::StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const std::string& name);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_NORMALIZERS_ICU_NORMALIZER_H_
