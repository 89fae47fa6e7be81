#include "pipeline/text_special_tokens.h"

#include <optional>

#include "fmt/format.h"

namespace tokvec {
namespace {

// BERT's [CLS] / [SEP]: an added token of that text, else a vocabulary entry spelled so.
absl::StatusOr<uint32_t> FindBertToken(const Tokenizer& tokenizer, std::string_view name, const std::string& dir) {
  if (std::optional<TokenId> id = tokenizer.FindSpecial(name)) return *id;
  if (std::optional<TokenId> id = tokenizer.model().FindSpelling(name)) return *id;
  return absl::InvalidArgumentError(fmt::format(
      "model directory '{}': config.json says model_type \"bert\", whose inputs are {} ... {}, but the tokenizer "
      "has no token '{}'",
      dir, "[CLS]", "[SEP]", name));
}

}  // namespace

absl::StatusOr<TextSpecialTokens> TextSpecialTokensFor(const Tokenizer& tokenizer, const ModelConfig& config,
                                                       const std::string& dir) {
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
    case Architecture::kBert:
    case Architecture::kModernBert: {
      absl::StatusOr<uint32_t> cls = FindBertToken(tokenizer, "[CLS]", dir);
      if (!cls.ok()) return cls.status();
      absl::StatusOr<uint32_t> sep = FindBertToken(tokenizer, "[SEP]", dir);
      if (!sep.ok()) return sep.status();
      out.before.push_back(*cls);
      out.after.push_back(*sep);
      break;
    }
    case Architecture::kGpt2:
    case Architecture::kGptNeo:
    case Architecture::kEncoder:
    case Architecture::kLlama:
    case Architecture::kQwen2:
    case Architecture::kQwen3:
      break;
  }
  return out;
}

}  // namespace tokvec
