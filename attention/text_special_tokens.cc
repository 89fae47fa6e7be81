#include "attention/text_special_tokens.h"

namespace tokvec {

TextSpecialTokens TextSpecialTokensFor(const Tokenizer& tokenizer, const ModelConfig& config) {
  TextSpecialTokens out;
  if (const auto& post = tokenizer.spec().post_processor; post != nullptr) {
    for (TokenId id : post->SingleBefore()) out.before.push_back(id);
    for (TokenId id : post->SingleAfter()) out.after.push_back(id);
    return out;
  }
  switch (config.arch) {
    case Architecture::kRoberta:
      out.before.push_back(static_cast<uint32_t>(config.bos_token_id));
      out.after.push_back(static_cast<uint32_t>(config.eos_token_id));
      break;
    case Architecture::kGpt2:
    case Architecture::kGptNeo:
    case Architecture::kEncoder:
      break;
  }
  return out;
}

}  // namespace tokvec
