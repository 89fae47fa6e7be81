#include "tokenizer/readable_token.h"

#include <cstdint>

#include "fmt/format.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

std::string ReadableBytes(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const uint8_t b = static_cast<uint8_t>(bytes[i]);
    if (b == ' ') {
      out += "␣";
    } else if (b == '\n') {
      out += "⏎";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b >= 0x20 && b < 0x7F) {
      out += static_cast<char>(b);
    } else if (const size_t n = b >= 0x80 ? Utf8SequenceLength(bytes, i) : 0; n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
      continue;
    } else {
      out += fmt::format("<0x{:02X}>", b);  // a control byte, or part of a character split over tokens
    }
    ++i;
  }
  return out;
}

std::string ReadableToken(const Tokenizer& tokenizer, TokenId id) {
  for (const SpecialToken& special : tokenizer.special_tokens()) {
    if (special.id == id) return special.text;
  }
  if (tokenizer.byte_level() == nullptr || id >= tokenizer.bpe().size()) return tokenizer.TokenSpelling(id);
  return ReadableBytes(tokenizer.bpe().token(id));
}

}  // namespace tokvec
