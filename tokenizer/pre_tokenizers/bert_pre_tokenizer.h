// Hugging Face's BertPreTokenizer: words are cut at white space (dropped) and every punctuation code point is a
// piece of its own (tokenizer/text/bert_unicode.h has both classes).
//
//   BertPreTokenizer pre_tokenizer;
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(pre_tokenizer.Split("Hi, you!", &pieces));  // "Hi" "," "you" "!"
//
// Invalid UTF-8 is an InvalidArgument error naming the byte offset of the first bad byte.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_BERT_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_BERT_PRE_TOKENIZER_H_

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

// The name `tokvec inspect` shows for this pre-tokenizer.
inline constexpr std::string_view kBertPreTokenizerName = "bert";

class BertPreTokenizer : public PreTokenizer {
 public:
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  std::string name() const override { return std::string(kBertPreTokenizerName); }
  // Before any ASCII white-space byte, as WhitespacePreTokenizer: no piece crosses it.
  size_t FindCut(std::string_view text, size_t limit) const override;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_BERT_PRE_TOKENIZER_H_
