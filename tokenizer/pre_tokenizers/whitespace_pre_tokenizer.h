// The pre-tokenizer of classic (word) BPE models: a word is a maximal run of code points that are not
// Unicode White_Space (ICU u_isUWhiteSpace: tab, newline, space, U+00A0, U+3000, ...). Whitespace is dropped.
//
//   WhitespacePreTokenizer pre_tokenizer;
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(pre_tokenizer.Split("low\u3000lower", &pieces));  // {0, 3} {6, 11}
//
// Invalid UTF-8 is an InvalidArgument error naming the byte offset of the first bad byte; it is never
// dropped silently.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_WHITESPACE_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_WHITESPACE_PRE_TOKENIZER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

// The name a model file records for this pre-tokenizer.
inline constexpr std::string_view kWhitespacePreTokenizerName = "whitespace";

class WhitespacePreTokenizer : public PreTokenizer {
 public:
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  std::string name() const override { return std::string(kWhitespacePreTokenizerName); }
  // Before any ASCII white-space byte: words are runs of non-white-space, so none crosses it.
  size_t FindCut(std::string_view text, size_t limit) const override;
  bool FindsCuts() const override { return true; }
};

// The byte offset of the first byte of `text` that is not part of a valid UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF are invalid), or nullopt when all of `text` is valid.
std::optional<size_t> FindInvalidUtf8(std::string_view text);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_WHITESPACE_PRE_TOKENIZER_H_
