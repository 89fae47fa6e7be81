#include "tokenizer/readable_token.h"

#include <cstdint>

#include "fmt/format.h"

namespace tokvec {
namespace {

// Length of the well-formed UTF-8 character starting at bytes[i] (RFC 3629: no overlong forms, no surrogates,
// at most U+10FFFF), or 0.
size_t CharLength(std::string_view bytes, size_t i) {
  const auto at = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  const uint8_t b = at(i);
  size_t n = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > bytes.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

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
    } else if (const size_t n = b >= 0x80 ? CharLength(bytes, i) : 0; n > 0) {
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
  if (tokenizer.type() != ModelType::kByte || id >= tokenizer.bpe().size()) return tokenizer.TokenSpelling(id);
  return ReadableBytes(tokenizer.bpe().token(id));
}

}  // namespace tokvec
