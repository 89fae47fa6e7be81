#include "tokenizer/text/utf8.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

size_t Utf8ValidEndPortable(std::string_view text, size_t pos) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t size = text.size();
  while (pos < size) {
    // 32 ASCII bytes at a time.
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

#if defined(__x86_64__)
namespace {

// Whole blocks of 32 bytes checked at once with AVX2, after Keiser and Lemire, "Validating UTF-8 in less than one
// instruction per byte" (2021): every error of well-formedness shows in some pair of adjacent bytes, as a bit that
// three 16-entry tables agree on, looked up by the first byte's high and low nibbles and the second byte's high
// nibble; what pairs cannot show (a third or fourth byte missing or one too many) is checked apart, from the bytes
// two and three back. The bits, for a pair (b1, b2):
constexpr uint8_t kTooShort = 1 << 0;   // b1 leads a sequence, b2 is not a continuation byte
constexpr uint8_t kTooLong = 1 << 1;    // b1 is ASCII, b2 is a continuation byte
constexpr uint8_t kOverlong3 = 1 << 2;  // E0 80..9F
constexpr uint8_t kTooLarge = 1 << 3;   // F4 90..BF, F5..FF 90..BF
constexpr uint8_t kSurrogate = 1 << 4;  // ED A0..BF
constexpr uint8_t kOverlong2 = 1 << 5;  // C0..C1 80..BF
constexpr uint8_t kTooLarge1000 = 1 << 6;  // F5..FF 80..8F
constexpr uint8_t kOverlong4 = 1 << 6;     // F0 80..8F (shares the bit: the low nibbles 0 and 5..F tell them apart)
constexpr uint8_t kTwoConts = 1 << 7;      // both continuation bytes: an error unless b2 is a third or fourth byte
constexpr uint8_t kCarry = kTooShort | kTooLong | kTwoConts;  // the bits that do not depend on b1's low nibble


// The position from which the portable loop goes on: a character's start at most 6 bytes before `checked` (the
// end of the blocks found well-formed, but for a sequence they may cut), not before `begin`.
size_t RestartBefore(const unsigned char* s, size_t begin, size_t checked) {
  size_t r = checked >= begin + 3 ? checked - 3 : begin;
  while (r > begin && (s[r] & 0xC0) == 0x80) --r;
  return r;
}

// The 16 bytes of a table in both lanes of a vector.
__attribute__((target("avx2"))) __m256i BothLanes(const uint8_t (&table)[16]) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table)));
}

__attribute__((target("avx2"))) size_t Avx2CheckedEnd(const unsigned char* s, size_t begin, size_t size) {
  // By the first byte's high nibble: 0_______ (ASCII, then a continuation byte), 10______ (continuation bytes),
  // then the leads 1100____, 1101____, 1110____, 1111____.
  static constexpr uint8_t kByte1High[16] = {
      kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong,
      kTwoConts, kTwoConts, kTwoConts, kTwoConts,
      kTooShort | kOverlong2, kTooShort, kTooShort | kOverlong3 | kSurrogate,
      kTooShort | kTooLarge | kTooLarge1000 | kOverlong4};
  // By the first byte's low nibble: ____0000 (C0, E0, F0), ____0001 (C1), ____0100 (F4), ____1101 (ED).
  static constexpr uint8_t kByte1Low[16] = {
      kCarry | kOverlong3 | kOverlong2 | kOverlong4, kCarry | kOverlong2, kCarry, kCarry, kCarry | kTooLarge,
      kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
      kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
      kCarry | kTooLarge | kTooLarge1000, kCarry | kTooLarge | kTooLarge1000,
      kCarry | kTooLarge | kTooLarge1000 | kSurrogate, kCarry | kTooLarge | kTooLarge1000,
      kCarry | kTooLarge | kTooLarge1000};
  // By the second byte's high nibble: ASCII, the continuations 1000____, 1001____, 101_____, then leads.
  constexpr uint8_t k8 = kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge1000 | kOverlong4;
  constexpr uint8_t k9 = kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge;
  constexpr uint8_t kAB = kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge;
  static constexpr uint8_t kByte2High[16] = {kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort,
                                             kTooShort, kTooShort, k8,        k9,        kAB,       kAB,
                                             kTooShort, kTooShort, kTooShort, kTooShort};
  // A block's last three bytes above these lead a sequence that goes on into the next block.
  static constexpr uint8_t kLastLeads[32] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                             0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                             0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xDF, 0xBF};
  const __m256i byte1_high = BothLanes(kByte1High);
  const __m256i byte1_low = BothLanes(kByte1Low);
  const __m256i byte2_high = BothLanes(kByte2High);
  const __m256i last_leads = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLastLeads));
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256i previous = _mm256_setzero_si256();  // the bytes before `begin` count as ASCII
  __m256i pending = _mm256_setzero_si256();   // nonzero: the previous block ends inside a sequence
  size_t pos = begin;
  for (; pos + 32 <= size; pos += 32) {
    const __m256i input = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + pos));
    if (_mm256_movemask_epi8(input) == 0) {  // ASCII: well-formed unless a sequence before it is cut short
      if (!_mm256_testz_si256(pending, pending)) break;
      previous = input;
      continue;
    }
    // The bytes 1, 2 and 3 places back, across the block boundary.
    const __m256i across = _mm256_permute2x128_si256(previous, input, 0x21);
    const __m256i prev1 = _mm256_alignr_epi8(input, across, 15);
    const __m256i prev2 = _mm256_alignr_epi8(input, across, 14);
    const __m256i prev3 = _mm256_alignr_epi8(input, across, 13);
    const __m256i special = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(byte1_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
                         _mm256_shuffle_epi8(byte1_low, _mm256_and_si256(prev1, nibble))),
        _mm256_shuffle_epi8(byte2_high, _mm256_and_si256(_mm256_srli_epi16(input, 4), nibble)));
    // A third byte (two after a lead E0..FF) or a fourth (three after F0..FF) must be a continuation byte, and
    // is the one place where two continuation bytes in a row are right.
    const __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8(static_cast<char>(0xE0 - 0x80)));
    const __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8(static_cast<char>(0xF0 - 0x80)));
    const __m256i must_continue =
        _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8(static_cast<char>(0x80)));
    const __m256i error = _mm256_xor_si256(must_continue, special);
    if (!_mm256_testz_si256(error, error)) break;
    pending = _mm256_subs_epu8(input, last_leads);
    previous = input;
  }
  return RestartBefore(s, begin, pos);
}

}  // namespace
#endif  // __x86_64__

size_t Utf8ValidEnd(std::string_view text, size_t pos) {
  // The splitters call this over all of their input; a quarter of the bench input's bytes are not ASCII, and
  // byte by byte they cost ~47 ms of the 0.8 s that encoding 100 MB with gpt2 took.
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && text.size() - pos >= 64) {
    pos = Avx2CheckedEnd(reinterpret_cast<const unsigned char*>(text.data()), pos, text.size());
  }
#endif
  return Utf8ValidEndPortable(text, pos);
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace tokvec
