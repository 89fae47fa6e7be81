#include "tokenizer/post_processor.h"

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

}  // namespace tokvec
