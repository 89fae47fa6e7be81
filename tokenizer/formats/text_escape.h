// The escapes of tokvec's text formats (the model file, tokenizer/formats/tokvec_model_format.cc, and count files,
// tokenizer/trainers/count_file.h): one field holds any bytes and never a raw space, tab or line break.
//
//   EscapeText(" the\n")  == "\\sthe\\n"
//   UnescapeText("\\sthe\\n", false, &error) == " the\n"
//
// Escapes: `\\` backslash, `\s` space, `\t` `\n` `\r`, `\xHH` any other byte below 0x20, 0x7F or a byte that is
// not part of well-formed UTF-8; `\/` reads as `/` (the model file writes a literal `</w>` as `<\/w>`).
#ifndef TOKVEC_TOKENIZER_FORMATS_TEXT_ESCAPE_H_
#define TOKVEC_TOKENIZER_FORMATS_TEXT_ESCAPE_H_

#include <optional>
#include <string>
#include <string_view>

namespace tokvec {

std::string EscapeText(std::string_view text);

// The inverse of EscapeText. With `word_token`, an unescaped `</w>` may only end the field and becomes the
// end-of-word byte (kEndOfWordByte, tokenizer.h). A malformed escape is nullopt with *error saying why.
std::optional<std::string> UnescapeText(std::string_view field, bool word_token, std::string* error);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_FORMATS_TEXT_ESCAPE_H_
