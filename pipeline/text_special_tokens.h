// The tokens a model directory puts around each text before the model sees it (`embed`, `attend`, `serve`):
//   1. the tokenizer.json's post_processor when it has one (Hugging Face's add_special_tokens=True: RoBERTa's
//      RobertaProcessing <s> ... </s>, BERT's TemplateProcessing [CLS] ... [SEP]);
//   2. otherwise the architecture's published convention for files that carry none: RoBERTa's <s> ... </s>
//      (bos_token_id, eos_token_id of config.json) beside a vocab.json; BERT's [CLS] ... [SEP] looked up in the
//      tokenizer (vocab.txt); decoder architectures (gpt2, gpt_neo, llama, qwen2, qwen3) add nothing.
// A new architecture adds its convention in TextSpecialTokensFor's switch.
//
//   TOKVEC_ASSIGN_OR_RETURN(TextSpecialTokens around, TextSpecialTokensFor(tokenizer, model.config(), dir));
//   // RoBERTa: {0}, {2}
#ifndef TOKVEC_PIPELINE_TEXT_SPECIAL_TOKENS_H_
#define TOKVEC_PIPELINE_TEXT_SPECIAL_TOKENS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "models/model_config.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct TextSpecialTokens {
  std::vector<uint32_t> before;  // ids in front of the text's
  std::vector<uint32_t> after;   // ids after the text's
};

// Errors: a BERT model whose tokenizer has no [CLS] or [SEP] (InvalidArgument naming `dir`).
absl::StatusOr<TextSpecialTokens> TextSpecialTokensFor(const Tokenizer& tokenizer, const ModelConfig& config,
                                                       const std::string& dir = "");

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_TEXT_SPECIAL_TOKENS_H_
