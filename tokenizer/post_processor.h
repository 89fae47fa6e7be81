// What Hugging Face's post_processor does to a single sequence's encoding, as steps run in order:
//   kAddTokens    add `before` ids in front and `after` ids at the end, each with offset (0, 0) (Hugging Face's
//                 offsets for them): TemplateProcessing's single template, RobertaProcessing and BertProcessing
//                 (<s> ... </s>, [CLS] ... [SEP]). Run only with add_special_tokens.
//   kTrimOffsets  ByteLevel's and RobertaProcessing's trim_offsets: a token's offsets leave out the spaces it
//                 begins or ends with (the first token's single prefix space is kept when `add_prefix_space`).
//                 Hugging Face runs it whether or not special tokens are added; ids do not change.
// Pair templates are read and checked but not applied (tokvec encodes one sequence at a time).
//
//   PostProcessor bert{{{.kind = PostProcessor::Step::kAddTokens, .before = {101}, .after = {102}}}};
//   bert.SingleBefore();   // {101}
#ifndef TOKVEC_TOKENIZER_POST_PROCESSOR_H_
#define TOKVEC_TOKENIZER_POST_PROCESSOR_H_

#include <string>
#include <vector>

#include "tokenizer/bpe_model.h"

namespace tokvec {

struct PostProcessor {
  struct Step {
    enum Kind { kAddTokens, kTrimOffsets } kind = kAddTokens;
    std::vector<TokenId> before;    // kAddTokens
    std::vector<TokenId> after;     // kAddTokens
    bool add_prefix_space = false;  // kTrimOffsets
  };
  std::vector<Step> steps;
  std::string name;  // Hugging Face's type, e.g. "TemplateProcessing", for messages and `inspect`.

  // All ids the steps add before / after a single sequence's ids, in order.
  std::vector<TokenId> SingleBefore() const;
  std::vector<TokenId> SingleAfter() const;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_POST_PROCESSOR_H_
