#include "tokenizer/utf8.h"

#include <cstdint>
#include <cstring>

namespace tokvec {

size_t Utf8SequenceLength(std::string_view text, size_t pos) {
  const size_t left = text.size() - pos;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[pos + i]); };
  const auto continuation = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead < 0xC2) return 0;  // Continuation byte, or overlong 2-byte lead (C0, C1).
  if (lead < 0xE0) return left >= 2 && continuation(1) ? 2 : 0;
  if (lead < 0xF0) {
    if (left < 3 || !continuation(1) || !continuation(2)) return 0;
    if (lead == 0xE0 && byte(1) < 0xA0) return 0;   // Overlong.
    if (lead == 0xED && byte(1) >= 0xA0) return 0;  // Surrogate U+D800..U+DFFF.
    return 3;
  }
  if (lead < 0xF5) {
    if (left < 4 || !continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (lead == 0xF0 && byte(1) < 0x90) return 0;   // Overlong.
    if (lead == 0xF4 && byte(1) >= 0x90) return 0;  // Above U+10FFFF.
    return 4;
  }
  return 0;
}

size_t Utf8ValidEnd(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    // Eight ASCII bytes at a time (the splitters call this over all of their input).
    uint64_t word;
    if (pos + 8 <= text.size() && (std::memcpy(&word, text.data() + pos, 8), (word & 0x8080808080808080ull) == 0)) {
      pos += 8;
      continue;
    }
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    size_t len = Utf8SequenceLength(text, pos);
    if (len == 0) break;
    pos += len;
  }
  return pos;
}

}  // namespace tokvec
