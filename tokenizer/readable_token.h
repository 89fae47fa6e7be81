// How a person sees a token (the attention page, `attend`'s text/SVG/HTML, `encode --tokens --readable`): its
// decoded text, with a visible mark where the text would be invisible or not a character.
//
//   ReadableBytes(" cat")      == "␣cat"     every space is ␣
//   ReadableBytes("\n")        == "⏎"        a newline; "\t" and "\r" are shown as the two characters \t, \r
//   ReadableBytes("\xE6")      == "<0xE6>"   a byte that is not a whole UTF-8 character (or a control byte)
//   ReadableToken(tokenizer, id_of("Ġcat")) == "␣cat"; special tokens keep their text ("<|endoftext|>")
//
// GPT-2's byte-to-unicode spelling (`Ġcat`, `Ċ`, Tokenizer::TokenSpelling) stays where tools expect it:
// `--format json`, `inspect`.
#ifndef TOKVEC_TOKENIZER_READABLE_TOKEN_H_
#define TOKVEC_TOKENIZER_READABLE_TOKEN_H_

#include <string>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace tokvec {

std::string ReadableBytes(std::string_view bytes);

// Byte-level tokens through ReadableBytes; special tokens, word-model tokens (`er</w>`) and unknown ids as
// TokenSpelling gives them.
std::string ReadableToken(const Tokenizer& tokenizer, TokenId id);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_READABLE_TOKEN_H_
