// The BPE fields of a Hugging Face tokenizer.json "model" object ({"type": "BPE", ...};
// tokenizers/src/models/bpe/serialization.rs) that belong to the model rather than its vocabulary: dropout,
// continuing_subword_prefix / end_of_word_suffix (bpe_affixes.h), unk_token, fuse_unk and byte_fallback
// (char_symbols.h). The vocabulary and merges themselves are built by the format (formats/spelled_vocab.h), since
// byte-level files spell them in GPT-2's byte alphabet.
//
//   TOKVEC_RETURN_IF_ERROR(CheckHfBpeDropout(model, path));
//   TOKVEC_ASSIGN_OR_RETURN(std::optional<BpeAffixes> affixes, ReadHfBpeAffixes(model, merges, path, true));
//
// Errors name the key in the file as text/tokenizer_json_fields.h does ("model.unk_token").
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_BPE_JSON_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_BPE_JSON_H_

#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/models/bpe/bpe_affixes.h"
#include "tokenizer/models/bpe/char_symbols.h"
#include "tokenizer/text/flat_vocab.h"

namespace tokvec {

// Hugging Face samples merges at random with a dropout: refused (unless null or 0, which draw nothing), ids would
// not be reproducible.
absl::Status CheckHfBpeDropout(const nlohmann::json& model, const std::string& path);

// model.continuing_subword_prefix and model.end_of_word_suffix, as token bytes: nullopt when both are null, absent
// or "". A byte-level model's affixes are spelled in GPT-2's byte alphabet. A merge's right side must begin with
// the prefix (Hugging Face cuts the prefix's length from it unchecked). Only the prefix, suffix and code_points
// are set.
absl::StatusOr<std::optional<BpeAffixes>> ReadHfBpeAffixes(const nlohmann::json& model, const FlatMerges& merges,
                                                           const std::string& path, bool byte_level);

// The unk_token, fuse_unk and byte_fallback of a BPE model; `find` looks the unk_token's spelling up in the
// vocabulary (an unk_token not in it is an error).
absl::StatusOr<CharBpeOptions> ReadHfBpeUnknown(
    const nlohmann::json& model, const std::string& path,
    absl::FunctionRef<std::optional<TokenId>(const std::string&)> find);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_BPE_JSON_H_
