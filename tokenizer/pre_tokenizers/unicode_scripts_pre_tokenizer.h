// Hugging Face's UnicodeScripts pre-tokenizer (tokenizers/src/pre_tokenizers/unicode_scripts): a piece is cut
// where the script of a code point differs from the script of the last code point that had one.
//
//   UnicodeScriptsPreTokenizer scripts;
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(scripts.Split(" abc  日本 x", &pieces));  // "abc  " "日本 " "x"
//
// Hugging Face's rules: the space U+0020 (and any code point its table does not list) has no script and joins
// the piece it is in; Hiragana, Katakana and U+30FC count as Han. Text before the first code point with a
// script (leading spaces) is dropped, as Hugging Face drops it. Hugging Face's script table is older than ICU's,
// so the classes are measured from tokenizers 0.23.2 (tokenizer/pre_tokenizers/unicode_scripts_table.inc, written by
// scripts/gen_hf_scripts_table.mjs); an ill-formed byte counts as U+FFFD.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_UNICODE_SCRIPTS_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_UNICODE_SCRIPTS_PRE_TOKENIZER_H_

#include <string>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

class UnicodeScriptsPreTokenizer : public PreTokenizer {
 public:
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  std::string name() const override { return "UnicodeScripts"; }
};

// The script class Hugging Face's UnicodeScripts gives `c` (equal numbers: same script), or -1 for none (U+0020,
// code points its table does not list).
int HfScriptOf(char32_t c);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_UNICODE_SCRIPTS_PRE_TOKENIZER_H_
