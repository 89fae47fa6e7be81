#include "tokenizer/models/wordlevel/wordlevel_model.h"

#include "base/status_macros.h"

namespace tokvec {

absl::StatusOr<WordLevelModel> WordLevelModel::Create(std::vector<std::pair<std::string, TokenId>> vocab,
                                                      std::string unk_token) {
  WordLevelModel model;
  TOKVEC_ASSIGN_OR_RETURN(model.table_, SpellingTable::Create(std::move(vocab), "WordLevel"));
  model.unk_token_ = std::move(unk_token);
  model.unk_id_ = model.Find(model.unk_token_);
  return model;
}

}  // namespace tokvec
