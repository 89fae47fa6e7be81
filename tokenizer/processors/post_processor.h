// What Hugging Face's post_processor does to a single sequence's encoding, as steps run in order:
//   kAddTokens    add `before` ids in front and `after` ids at the end, each with offset (0, 0) (Hugging Face's
//                 offsets for them): TemplateProcessing's single template, RobertaProcessing and BertProcessing
//                 (<s> ... </s>, [CLS] ... [SEP]). Run only with add_special_tokens.
//   kTrimOffsets  ByteLevel's and RobertaProcessing's trim_offsets: a token's offsets leave out the spaces it
//                 begins or ends with (the first token's single prefix space is kept when `add_prefix_space`).
//                 Hugging Face runs it whether or not special tokens are added; ids do not change.
// A pair of sequences (Hugging Face's encode(a, b)) is laid out by PairTemplate(): the pieces of the kAddTokens
// step's `pair` template (TemplateProcessing's "pair"; RobertaProcessing's <s> A </s></s> B </s>, all type id 0;
// BertProcessing's [CLS] A [SEP] B [SEP], type ids 0 then 1), or A:0 B:1 when there is no kAddTokens step.
// tokenizer/sequence_encoding.h encodes pairs with it.
//
//   PostProcessor bert{{{.kind = PostProcessor::Step::kAddTokens, .before = {101}, .after = {102}}}};
//   bert.SingleBefore();   // {101}
#ifndef TOKVEC_TOKENIZER_PROCESSORS_POST_PROCESSOR_H_
#define TOKVEC_TOKENIZER_PROCESSORS_POST_PROCESSOR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/tokenizer_model.h"

namespace tokvec {

// One piece of a pair template: sequence A, sequence B, or special tokens; each token it gives has `type_id`.
struct TemplatePiece {
  enum Kind { kSequenceA, kSequenceB, kTokens } kind = kTokens;
  std::vector<TokenId> ids;  // kTokens
  uint32_t type_id = 0;
};

struct PostProcessor {
  struct Step {
    enum Kind { kAddTokens, kTrimOffsets } kind = kAddTokens;
    std::vector<TokenId> before;    // kAddTokens
    std::vector<TokenId> after;     // kAddTokens
    bool add_prefix_space = false;  // kTrimOffsets
    // kAddTokens: the pair template (none for a TemplateProcessing without "pair").
    std::optional<std::vector<TemplatePiece>> pair;
    // kAddTokens: the windows truncation cuts off get type id 0 too when the tokens are added (RobertaProcessing);
    // otherwise they keep their text's (0 for a, 1 for b), as Hugging Face's other processors leave them.
    bool zero_window_type_ids = false;
  };
  std::vector<Step> steps;
  std::string name;  // Hugging Face's type, e.g. "TemplateProcessing", for messages and `inspect`.

  // The kAddTokens steps' ids around one sequence's tokens (Tokenizer::Encode's last step), each with offset (0, 0).
  void AddTokens(std::vector<TokenId>* ids, std::vector<Offset>* offsets) const;
  // The kTrimOffsets steps: each offset moves past the spaces its token begins and ends with (`spaces(i, leading)`
  // counts them for token i); token 0 is the first of its encoding (Hugging Face spares its one leading space under
  // add_prefix_space).
  void TrimOffsets(absl::FunctionRef<size_t(size_t i, bool leading)> spaces, std::vector<Offset>* offsets) const;
  // True when a step trims offsets.
  bool TrimsOffsets() const {
    for (const Step& step : steps) {
      if (step.kind == Step::kTrimOffsets) return true;
    }
    return false;
  }
  // All ids the steps add before / after a single sequence's ids, in order.
  std::vector<TokenId> SingleBefore() const;
  std::vector<TokenId> SingleAfter() const;
  // How a pair is laid out: the pair template of the kAddTokens step, or A:0 B:1 when there is none. Errors
  // (FailedPrecondition): a TemplateProcessing without a pair template, or more than one kAddTokens step
  // (a Sequence of two, which Hugging Face does not implement for pairs either).
  absl::StatusOr<std::vector<TemplatePiece>> PairTemplate() const;
  // True when a kAddTokens step has zero_window_type_ids.
  bool ZeroWindowTypeIds() const {
    for (const Step& step : steps) {
      if (step.kind == Step::kAddTokens && step.zero_window_type_ids) return true;
    }
    return false;
  }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PROCESSORS_POST_PROCESSOR_H_
