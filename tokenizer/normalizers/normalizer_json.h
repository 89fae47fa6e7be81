// The "normalizer" of a Hugging Face tokenizer.json, read into one Normalizer:
//   NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, BertNormalizer {clean_text, handle_chinese_chars,
//   strip_accents, lowercase}   -> ICU steps (icu_normalizer.h: MakeNormalizer's '+'-joined names)
//   Prepend, Replace, Strip      -> edit_normalizers.h
//   Precompiled {precompiled_charsmap}  -> precompiled_normalizer.h
//   Sequence {normalizers}       -> the above in order; runs of ICU steps become one ICU normalizer, the others
//                                   split them into a chain (sequence_normalizer.h)
// "Bert" is Hugging Face's own type name for BertNormalizer; a normalizer without "type" (older files) is the first
// kind of its untagged fallback whose fields are there: BertNormalizer, Strip, Sequence, Replace, Prepend.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> n, ReadHfNormalizer(&json["normalizer"], path, {}));
//
// Errors name the key in the file ("normalizer.normalizers[2].type") as tokenizer_json_fields.h does.
#ifndef TOKVEC_TOKENIZER_NORMALIZERS_NORMALIZER_JSON_H_
#define TOKVEC_TOKENIZER_NORMALIZERS_NORMALIZER_JSON_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/normalizers/normalizer.h"

namespace tokvec {

// `node`: the "normalizer" value (nullptr when the file has none; null reads as none). `extra_steps` are ICU step
// names run after it (e.g. a model's "lowercase"). Gives nullptr when there is nothing to do.
absl::StatusOr<std::unique_ptr<Normalizer>> ReadHfNormalizer(const nlohmann::json* node, const std::string& path,
                                                             const std::vector<std::string>& extra_steps);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_NORMALIZERS_NORMALIZER_JSON_H_
