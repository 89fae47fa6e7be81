// Hugging Face's pre-tokenizers that split at code points of one class (tokenizers/src/pre_tokenizers/
// {digits,punctuation,whitespace,delimiter}.rs): each code point of the class is a match of its own, and a
// SplitBehavior (split_behavior.h) makes the pieces.
//
//   std::unique_ptr<PreTokenizer> digits = MakeDigitsSplitter(/*individual_digits=*/false);
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(digits->Split("a123b", &pieces));  // "a" "123" "b"
//
//   Digits {individual_digits}  Rust's char::is_numeric (categories Nd, Nl, No); Isolated when individual,
//                               else Contiguous
//   Punctuation {behavior}      ASCII punctuation or a P* category, as BertPreTokenizer (bert_unicode.h)
//   WhitespaceSplit             White_Space (Rust's char::is_whitespace), Removed
//   CharDelimiterSplit          one code point, Removed
// The text need not be UTF-8: an ill-formed byte counts as U+FFFD, which is in none of these classes.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_CHAR_CLASS_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_CHAR_CLASS_PRE_TOKENIZER_H_

#include <functional>
#include <memory>
#include <string>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/split_behavior.h"

namespace tokvec {

class CharClassSplitter : public PreTokenizer {
 public:
  CharClassSplitter(std::string name, std::function<bool(char32_t)> in_class, SplitBehavior behavior)
      : name_(std::move(name)), in_class_(std::move(in_class)), behavior_(behavior) {}
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  std::string name() const override { return name_; }

 private:
  std::string name_;
  std::function<bool(char32_t)> in_class_;
  SplitBehavior behavior_;
};

std::unique_ptr<PreTokenizer> MakeDigitsSplitter(bool individual_digits);
std::unique_ptr<PreTokenizer> MakePunctuationSplitter(SplitBehavior behavior);
std::unique_ptr<PreTokenizer> MakeWhitespaceSplitSplitter();
std::unique_ptr<PreTokenizer> MakeCharDelimiterSplitter(char32_t delimiter);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_CHAR_CLASS_PRE_TOKENIZER_H_
