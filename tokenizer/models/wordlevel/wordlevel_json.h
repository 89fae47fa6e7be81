// The "model" object of a Hugging Face tokenizer.json for WordLevel, read into a WordLevelModel:
//   {"type": "WordLevel", "vocab": {spelling: id}, "unk_token": "<unk>"}
// (tokenizers/src/models/wordlevel/serialization.rs: both keys required, "type" optional). The vocabulary comes as
// flat pairs (text/flat_vocab.h) taken by the caller, as for WordPiece (wordpiece_json.h).
//
//   TOKVEC_ASSIGN_OR_RETURN(std::string unk, ReadHfWordLevelUnk(json["model"], path));
//   TOKVEC_ASSIGN_OR_RETURN(WordLevelModel model, MakeHfWordLevelModel(vocab, std::move(unk), path));
//
// Errors name the key in the file as text/tokenizer_json_fields.h does ("model.unk_token").
#ifndef TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_JSON_H_
#define TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/models/wordlevel/wordlevel_model.h"
#include "tokenizer/text/flat_vocab.h"

namespace tokvec {

// model.unk_token (required, a string).
absl::StatusOr<std::string> ReadHfWordLevelUnk(const nlohmann::json& model, const std::string& path);

// The model of `vocab` (model.vocab's pairs); WordLevelModel::Create's errors at model.vocab.
absl::StatusOr<WordLevelModel> MakeHfWordLevelModel(const FlatVocab& vocab, std::string unk_token,
                                                    const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_WORDLEVEL_WORDLEVEL_JSON_H_
