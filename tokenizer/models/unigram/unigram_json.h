// The "model" object of a Hugging Face tokenizer.json for Unigram, read into a UnigramModel:
//   {"type": "Unigram", "vocab": [["piece", score], ...], "unk_id": N or null, "byte_fallback": bool}
// (tokenizers/src/models/unigram/serialization.rs).
//
//   TOKVEC_ASSIGN_OR_RETURN(UnigramModel model, ReadHfUnigramModel(json["model"], path));
//
// Errors name the key in the file as text/tokenizer_json_fields.h does ("model.vocab[3]").
#ifndef TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_JSON_H_
#define TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/models/unigram/unigram_model.h"

namespace tokvec {

absl::StatusOr<UnigramModel> ReadHfUnigramModel(const nlohmann::json& model, const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_UNIGRAM_UNIGRAM_JSON_H_
