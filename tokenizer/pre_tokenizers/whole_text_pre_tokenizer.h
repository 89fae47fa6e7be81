// The pre-tokenizer of a tokenizer.json whose pre_tokenizer is null (Llama-2, Mistral v0.1): the whole text,
// after the normalizer, is one piece. BPE on one long piece stays O(n log n) (BpeModel::Merge's heap path).
//
//   WholeTextPreTokenizer pre_tokenizer;
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(pre_tokenizer.Split("▁Hello▁world", &pieces));  // {0, 16}
//
// It never offers a cut (FindCut stays 0): no position splits a piece's merges safely.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_WHOLE_TEXT_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_WHOLE_TEXT_PRE_TOKENIZER_H_

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

class WholeTextPreTokenizer : public PreTokenizer {
 public:
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override {
    if (!text.empty()) pieces->push_back({0, text.size()});
    return absl::OkStatus();
  }
  std::string name() const override { return "none (the whole text is one piece)"; }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_WHOLE_TEXT_PRE_TOKENIZER_H_
