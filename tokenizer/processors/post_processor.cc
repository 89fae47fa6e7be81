#include "tokenizer/processors/post_processor.h"

#include "fmt/format.h"

namespace tokvec {

std::vector<TokenId> PostProcessor::SingleBefore() const {
  std::vector<TokenId> ids;
  // A later step wraps what the earlier ones made: its tokens go outside theirs.
  for (const Step& step : steps) {
    if (step.kind == Step::kAddTokens) ids.insert(ids.begin(), step.before.begin(), step.before.end());
  }
  return ids;
}

std::vector<TokenId> PostProcessor::SingleAfter() const {
  std::vector<TokenId> ids;
  for (const Step& step : steps) {
    if (step.kind == Step::kAddTokens) ids.insert(ids.end(), step.after.begin(), step.after.end());
  }
  return ids;
}

absl::StatusOr<std::vector<TemplatePiece>> PostProcessor::PairTemplate() const {
  const Step* adding = nullptr;
  for (const Step& step : steps) {
    if (step.kind != Step::kAddTokens) continue;
    if (adding != nullptr) {
      return absl::FailedPreconditionError(fmt::format(
          "the post-processor '{}' adds special tokens in more than one step; sentence pairs need a single one",
          name));
    }
    adding = &step;
  }
  if (adding == nullptr) {
    return std::vector<TemplatePiece>{{.kind = TemplatePiece::kSequenceA, .type_id = 0},
                                      {.kind = TemplatePiece::kSequenceB, .type_id = 1}};
  }
  if (!adding->pair) {
    return absl::FailedPreconditionError(
        fmt::format("the post-processor '{}' has no pair template (\"pair\"), so it cannot encode sentence pairs",
                    name));
  }
  return *adding->pair;
}

}  // namespace tokvec
