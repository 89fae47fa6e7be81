#include "tokenizer/models/wordlevel/wordlevel_json.h"

#include <utility>

#include "base/status_macros.h"
#include "tokenizer/models/spelling_table.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {

absl::StatusOr<std::string> ReadHfWordLevelUnk(const nlohmann::json& model, const std::string& path) {
  if (!model.contains("unk_token")) return HfKeyError(path, "model.unk_token", "missing (WordLevel needs one)");
  if (!model["unk_token"].is_string()) return HfKeyError(path, "model.unk_token", "expected a string");
  return model["unk_token"].get<std::string>();
}

absl::StatusOr<WordLevelModel> MakeHfWordLevelModel(const FlatVocab& flat, std::string unk_token,
                                                    const std::string& path) {
  TOKVEC_ASSIGN_OR_RETURN(auto vocab, HfVocabPairs(flat, path));
  absl::StatusOr<WordLevelModel> model = WordLevelModel::Create(std::move(vocab), std::move(unk_token));
  if (!model.ok()) return HfKeyError(path, "model.vocab", std::string(model.status().message()));
  return model;
}

}  // namespace tokvec
