// GPT-2's byte-to-unicode spelling of byte strings, used by vocab.json, merges.txt and tokenizer.json.
//
// Printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ' as Latin-1) stand for themselves; the other 68 bytes map, in
// byte order, to U+0100, U+0101, ... So a space (0x20) is spelled "Ġ" (U+0120) and "\n" is "Ċ" (U+010A).
//
//   BytesToUnicode(" the") == "Ġthe"
//   UnicodeToBytes("Ġthe") == " the"
#ifndef TOKVEC_TOKENIZER_TEXT_BYTE_UNICODE_H_
#define TOKVEC_TOKENIZER_TEXT_BYTE_UNICODE_H_

#include <optional>
#include <string>
#include <string_view>

namespace tokvec {

// Spells each byte as one code point (UTF-8 encoded result).
std::string BytesToUnicode(std::string_view bytes);
// The inverse; nullopt when `text` holds a code point that is not the spelling of a byte, or invalid UTF-8.
std::optional<std::string> UnicodeToBytes(std::string_view text);
// The same, appended to `out` (no allocation per call when `out` is reused); false (with `out` holding part of
// the bytes) when UnicodeToBytes gives nullopt.
bool AppendUnicodeToBytes(std::string_view text, std::string* out);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_BYTE_UNICODE_H_
