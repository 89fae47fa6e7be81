// The "model" object of a Hugging Face tokenizer.json for WordPiece, read into a WordPieceModel:
//   {"type": "WordPiece", "vocab": {spelling: id}, "unk_token": "[UNK]", "continuing_subword_prefix": "##",
//    "max_input_chars_per_word": 100}
// (tokenizers/src/models/wordpiece/serialization.rs). The vocabulary comes as flat pairs (text/flat_vocab.h): the
// format's fast scanner may have taken it out of the text before the rest was parsed, so the caller reads the
// options, takes the vocabulary, then builds.
//
//   TOKVEC_ASSIGN_OR_RETURN(WordPieceModel::Options options, ReadHfWordPieceOptions(json["model"], path));
//   TOKVEC_ASSIGN_OR_RETURN(WordPieceModel model, MakeHfWordPieceModel(vocab, std::move(options), path));
//
// Errors name the key in the file as text/tokenizer_json_fields.h does ("model.unk_token").
#ifndef TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_JSON_H_
#define TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/models/wordpiece/wordpiece_model.h"
#include "tokenizer/text/flat_vocab.h"

namespace tokvec {

// unk_token, continuing_subword_prefix and max_input_chars_per_word; absent ones keep Hugging Face's defaults.
absl::StatusOr<WordPieceModel::Options> ReadHfWordPieceOptions(const nlohmann::json& model, const std::string& path);

// The model of `vocab` (model.vocab's pairs) with `options`; WordPieceModel::Create's errors at model.vocab.
absl::StatusOr<WordPieceModel> MakeHfWordPieceModel(const FlatVocab& vocab, WordPieceModel::Options options,
                                                    const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_WORDPIECE_WORDPIECE_JSON_H_
