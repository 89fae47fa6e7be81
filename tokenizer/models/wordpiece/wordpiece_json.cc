#include "tokenizer/models/wordpiece/wordpiece_json.h"

#include <cstdint>
#include <utility>

#include "base/status_macros.h"
#include "tokenizer/models/spelling_table.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {

absl::StatusOr<WordPieceModel::Options> ReadHfWordPieceOptions(const nlohmann::json& model, const std::string& path) {
  WordPieceModel::Options options;
  if (model.contains("unk_token")) {
    if (!model["unk_token"].is_string()) return HfKeyError(path, "model.unk_token", "expected a string");
    options.unk_token = model["unk_token"].get<std::string>();
  }
  if (model.contains("continuing_subword_prefix")) {
    if (!model["continuing_subword_prefix"].is_string()) {
      return HfKeyError(path, "model.continuing_subword_prefix", "expected a string");
    }
    options.continuing_subword_prefix = model["continuing_subword_prefix"].get<std::string>();
  }
  if (model.contains("max_input_chars_per_word")) {
    if (!model["max_input_chars_per_word"].is_number_unsigned()) {
      return HfKeyError(path, "model.max_input_chars_per_word", "expected a non-negative integer");
    }
    options.max_input_chars_per_word = model["max_input_chars_per_word"].get<uint64_t>();
  }
  return options;
}

absl::StatusOr<WordPieceModel> MakeHfWordPieceModel(const FlatVocab& flat, WordPieceModel::Options options,
                                                    const std::string& path) {
  TOKVEC_ASSIGN_OR_RETURN(auto vocab, HfVocabPairs(flat, path));
  absl::StatusOr<WordPieceModel> wordpiece = WordPieceModel::Create(std::move(vocab), std::move(options));
  if (!wordpiece.ok()) return HfKeyError(path, "model.vocab", std::string(wordpiece.status().message()));
  return wordpiece;
}

}  // namespace tokvec
