#include "tokenizer/processors/post_processor.h"

#include <algorithm>

#include "fmt/format.h"

namespace tokvec {

void PostProcessor::AddTokens(std::vector<TokenId>* ids, std::vector<Offset>* offsets) const {
  const std::vector<TokenId> before = SingleBefore();
  const std::vector<TokenId> after = SingleAfter();
  ids->insert(ids->begin(), before.begin(), before.end());
  ids->insert(ids->end(), after.begin(), after.end());
  offsets->insert(offsets->begin(), before.size(), Offset{0, 0});
  offsets->insert(offsets->end(), after.size(), Offset{0, 0});
}

void PostProcessor::TrimOffsets(absl::FunctionRef<size_t(size_t i, bool leading)> spaces,
                                std::vector<Offset>* offsets) const {
  for (const Step& step : steps) {
    if (step.kind != Step::kTrimOffsets) continue;
    for (size_t i = 0; i < offsets->size(); ++i) {
      Offset& offset = (*offsets)[i];
      size_t leading = spaces(i, true);
      const size_t trailing = spaces(i, false);
      if (leading > 0) {
        if ((i == 0 || offset.begin == 0) && step.add_prefix_space && leading == 1) leading = 0;
        offset.begin = std::min(offset.begin + leading, offset.end);
      }
      if (trailing > 0 && offset.end >= trailing) offset.end = std::max(offset.end - trailing, offset.begin);
    }
  }
}

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
