#include "tokenizer/utf8.h"

#include <cstdint>
#include <cstring>

namespace tokvec {

namespace {

// The continuation bytes a lead byte needs (0 for a byte that leads nothing) and the range of its second byte
// (Table 3-7: E0 A0..BF, ED 80..9F, F0 90..BF, F4 80..8F, the others 80..BF).
struct LeadByte {
  size_t continuations = 0;
  unsigned char low = 0x80, high = 0xBF;
};
LeadByte ClassifyLead(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return {1};
  if (lead >= 0xE0 && lead <= 0xEF) {
    return {2, static_cast<unsigned char>(lead == 0xE0 ? 0xA0 : 0x80),
            static_cast<unsigned char>(lead == 0xED ? 0x9F : 0xBF)};
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    return {3, static_cast<unsigned char>(lead == 0xF0 ? 0x90 : 0x80),
            static_cast<unsigned char>(lead == 0xF4 ? 0x8F : 0xBF)};
  }
  return {};
}

}  // namespace

size_t Utf8MaximalSubpart(std::string_view text, size_t pos) {
  const LeadByte lead = ClassifyLead(static_cast<unsigned char>(text[pos]));
  size_t k = 1;
  while (k <= lead.continuations && pos + k < text.size()) {
    const auto c = static_cast<unsigned char>(text[pos + k]);
    if (k == 1 ? (c < lead.low || c > lead.high) : (c < 0x80 || c > 0xBF)) break;
    ++k;
  }
  return k;
}

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
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t size = text.size();
  while (pos < size) {
    // 32 ASCII bytes at a time (the splitters call this over all of their input).
    if (pos + 32 <= size) {
      uint64_t w[4];
      std::memcpy(w, s + pos, 32);
      if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ull) == 0) {
        pos += 32;
        continue;
      }
    }
    const unsigned char lead = s[pos];
    if (lead < 0x80) {
      ++pos;
      continue;
    }
    // Two- and three-byte sequences of the common ranges inline (lead C2..DF; lead E1..EC or EE..EF, whose
    // second byte may be any continuation byte); the rest by Utf8SequenceLength.
    if (lead >= 0xC2 && lead <= 0xDF && pos + 2 <= size && (s[pos + 1] & 0xC0) == 0x80) {
      pos += 2;
      continue;
    }
    if (lead >= 0xE1 && lead <= 0xEF && lead != 0xED && pos + 3 <= size && (s[pos + 1] & 0xC0) == 0x80 &&
        (s[pos + 2] & 0xC0) == 0x80) {
      pos += 3;
      continue;
    }
    const size_t len = Utf8SequenceLength(text, pos);
    if (len == 0) break;
    pos += len;
  }
  return pos;
}

}  // namespace tokvec
