// Pieces of a Hugging Face tokenizer.json "model" object as JSON text, for the models' HfModelJson
// (models/tokenizer_model.h): written as text rather than through nlohmann's ordered_json, whose object insertion
// is a linear search (quadratic for a 250k-token vocabulary).
//
//   std::string vocab = VocabJsonObject(table.size(), [&](TokenId id) { return table.token(id); });
//   // {"[PAD]":0,"[UNK]":1,...}: ids in order, ids spelled "" (gaps) left out
#ifndef TOKVEC_TOKENIZER_MODELS_VOCAB_JSON_H_
#define TOKVEC_TOKENIZER_MODELS_VOCAB_JSON_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {

// `text` as a JSON string, quoted and escaped (bytes that are not UTF-8 become U+FFFD).
std::string JsonString(std::string_view text);

// {"spelling": id, ...} for ids 0 .. size - 1 in order; an id whose spelling is "" is a gap and left out.
std::string VocabJsonObject(size_t size, absl::FunctionRef<std::string_view(TokenId)> spelling);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_VOCAB_JSON_H_
