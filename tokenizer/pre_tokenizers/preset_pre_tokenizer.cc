#include "tokenizer/pre_tokenizers/preset_pre_tokenizer.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "tokenizer/text/utf8.h"
#include "unicode/uchar.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tokvec {
namespace {

enum class Preset { kGpt2, kCl100k, kO200k };

// Character classes of the regexes, one bit each; 0 is "no character" (the end of the stretch).
enum : uint8_t {
  kLetter = 1,    // \p{L}
  kNumber = 2,    // \p{N}
  kSpace = 4,     // \s = White_Space
  kUpper = 8,     // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
  kLower = 16,    // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
  kNewline = 32,  // [\r\n]
  kChar = 64      // any character
};

uint8_t ClassOf(UChar32 c) {
  const uint32_t mask = U_GET_GC_MASK(c);
  uint8_t bits = kChar;
  if (mask & U_GC_L_MASK) bits |= kLetter;
  if (mask & U_GC_N_MASK) bits |= kNumber;
  if (u_hasBinaryProperty(c, UCHAR_WHITE_SPACE)) bits |= kSpace;
  if (mask & (U_GC_LU_MASK | U_GC_LT_MASK | U_GC_LM_MASK | U_GC_LO_MASK | U_GC_M_MASK)) bits |= kUpper;
  if (mask & (U_GC_LL_MASK | U_GC_LM_MASK | U_GC_LO_MASK | U_GC_M_MASK)) bits |= kLower;
  if (c == '\r' || c == '\n') bits |= kNewline;
  return bits;
}

// The classes of the Basic Multilingual Plane, a table built once (65,536 ICU lookups, a few milliseconds).
const uint8_t* BmpClasses() {
  static const uint8_t* bmp = [] {
    auto* table = new uint8_t[0x10000];
    for (UChar32 a = 0; a < 0x10000; ++a) table[a] = ClassOf(a);
    return table;
  }();
  return bmp;
}

// The classes of any code point: the BMP from the table, the rest from ICU.
uint8_t Classes(UChar32 c) { return c < 0x10000 ? BmpClasses()[c] : ClassOf(c); }

// One character: its classes and its length in bytes.
struct Char {
  uint8_t cls;
  uint8_t len;
};

// Reads the characters of one well-formed stretch text[.., end) straight from its bytes: ASCII from a table,
// the rest decoded on the spot. Every matcher below works on byte offsets.
class Scanner {
 public:
  Scanner(std::string_view text, size_t end) : s_(text.data()), end_(end) {
    static const auto* ascii = [] {
      auto* table = new Char[128];
      for (int c = 0; c < 128; ++c) table[c] = {ClassOf(c), 1};
      return table;
    }();
    ascii_ = ascii;
    bmp_ = BmpClasses();
  }

  size_t end() const { return end_; }
  unsigned char Byte(size_t i) const { return i < end_ ? static_cast<unsigned char>(s_[i]) : 0; }
  Char At(size_t i) const {
    if (i >= end_) return {0, 0};
    const unsigned char lead = static_cast<unsigned char>(s_[i]);
    if (lead < 0x80) return ascii_[lead];
    size_t len;
    const char32_t cp = DecodeWellFormedUtf8(std::string_view(s_, end_), i, &len);
    return {cp < 0x10000 ? bmp_[cp] : ClassOf(static_cast<UChar32>(cp)), static_cast<uint8_t>(len)};
  }
  // The end of the run of characters having any of `bits`, from i.
  size_t RunEnd(size_t i, uint8_t bits) const {
    for (Char c = At(i); c.cls & bits; c = At(i)) i += c.len;
    return i;
  }

 private:
  const char* s_;
  size_t end_;
  const Char* ascii_;
  const uint8_t* bmp_;  // BmpClasses()
};

constexpr size_t kFail = ~size_t{0};

// [^\s\p{L}\p{N}]
bool IsOther(Char c) { return (c.cls & kChar) && !(c.cls & (kSpace | kLetter | kNumber)); }
// [^\r\n\p{L}\p{N}]
bool IsPrefix(Char c) { return (c.cls & kChar) && !(c.cls & (kNewline | kLetter | kNumber)); }

// 's|'t|'re|'ve|'m|'ll|'d at i, case-sensitive or (?i:...) with simple case folding (ſ, U+017F, is s).
size_t Contraction(const Scanner& s, size_t i, bool ignore_case) {
  if (s.Byte(i) != '\'') return kFail;
  // The length of `lower` (or its case variants) at k, 0 if absent.
  auto is = [&](size_t k, char lower) -> size_t {
    const unsigned char b = s.Byte(k);
    if (b == static_cast<unsigned char>(lower)) return 1;
    if (!ignore_case) return 0;
    if (b == static_cast<unsigned char>(lower - 'a' + 'A')) return 1;
    if (lower == 's' && b == 0xC5 && s.Byte(k + 1) == 0xBF) return 2;
    return 0;
  };
  // The second letters differ, so the order of the alternatives does not matter.
  for (char c : {'s', 't', 'm', 'd'}) {
    if (size_t len = is(i + 1, c)) return i + 1 + len;
  }
  for (char c : {'r', 'v'}) {
    if (is(i + 1, c) && is(i + 2, 'e')) return i + 3;
  }
  if (is(i + 1, 'l') && is(i + 2, 'l')) return i + 3;
  return kFail;
}

// \s*[\r\n]+ | \s+(?!\S) | \s+ at a white-space character i (the last three alternatives of cl100k and o200k;
// gpt2 has only the last two).
size_t Spaces(const Scanner& s, size_t i, bool newline_alternative) {
  size_t run_end = i, last_start = i, after_newline = kFail, count = 0;
  for (Char c = s.At(run_end); c.cls & kSpace; c = s.At(run_end)) {
    last_start = run_end;
    run_end += c.len;
    ++count;
    if (c.cls & kNewline) after_newline = run_end;
  }
  if (newline_alternative && after_newline != kFail) return after_newline;
  if (run_end == s.end()) return run_end;
  if (count >= 2) return last_start;  // \s+(?!\S) backs off one character before a non-space.
  return run_end;
}

// The end of a run of [^\s\p{L}\p{N}] from j.
size_t OtherRunEnd(const Scanner& s, size_t j) {
  for (Char c = s.At(j); IsOther(c); c = s.At(j)) j += c.len;
  return j;
}

// Up to three numbers from i (\p{N}{1,3}).
size_t ThreeNumbers(const Scanner& s, size_t i) {
  for (int k = 0; k < 3; ++k) {
    Char c = s.At(i);
    if (!(c.cls & kNumber)) break;
    i += c.len;
  }
  return i;
}

size_t MatchGpt2(const Scanner& s, size_t i) {
  if (size_t end = Contraction(s, i, false); end != kFail) return end;
  const size_t j = s.Byte(i) == ' ' ? i + 1 : i;
  const Char c = s.At(j);
  if (c.cls & kLetter) return s.RunEnd(j, kLetter);
  if (c.cls & kNumber) return s.RunEnd(j, kNumber);
  if (IsOther(c)) return OtherRunEnd(s, j);
  return Spaces(s, i, false);  // Only white space is left.
}

size_t MatchCl100k(const Scanner& s, size_t i) {
  if (size_t end = Contraction(s, i, true); end != kFail) return end;
  const Char c = s.At(i);
  if (c.cls & kLetter) return s.RunEnd(i, kLetter);
  if (IsPrefix(c) && (s.At(i + c.len).cls & kLetter)) return s.RunEnd(i + c.len, kLetter);
  if (c.cls & kNumber) return ThreeNumbers(s, i);
  const size_t j = s.Byte(i) == ' ' && IsOther(s.At(i + 1)) ? i + 1 : i;
  if (IsOther(s.At(j))) return s.RunEnd(OtherRunEnd(s, j), kNewline);
  return Spaces(s, i, true);
}

// The body of o200k's first two alternatives from `start`, without the optional prefix:
// [Upper]*[Lower]+ (upper_first == false) or [Upper]+[Lower]* (upper_first == true), then a contraction.
size_t O200kWord(const Scanner& s, size_t start, bool upper_first) {
  size_t upper_end = start, last_lower = kFail;  // last_lower: the last character of the run that is also Lower
  for (Char c = s.At(upper_end); c.cls & kUpper; c = s.At(upper_end)) {
    if (c.cls & kLower) last_lower = upper_end;
    upper_end += c.len;
  }
  size_t end;
  if (!upper_first) {
    // [Upper]* backs off until [Lower]+ can start: at the last Lower character at or before upper_end.
    size_t lower_start = (s.At(upper_end).cls & kLower) ? upper_end : last_lower;
    if (lower_start == kFail) return kFail;
    end = s.RunEnd(lower_start, kLower);
  } else {
    if (upper_end == start) return kFail;
    end = s.RunEnd(upper_end, kLower);
  }
  if (size_t contraction = Contraction(s, end, true); contraction != kFail) end = contraction;
  return end;
}

size_t MatchO200k(const Scanner& s, size_t i) {
  const Char c = s.At(i);
  for (bool upper_first : {false, true}) {
    if (IsPrefix(c)) {
      if (size_t end = O200kWord(s, i + c.len, upper_first); end != kFail) return end;
    }
    if (size_t end = O200kWord(s, i, upper_first); end != kFail) return end;
  }
  if (c.cls & kNumber) return ThreeNumbers(s, i);
  const size_t j = s.Byte(i) == ' ' && IsOther(s.At(i + 1)) ? i + 1 : i;
  if (IsOther(s.At(j))) {
    size_t k = OtherRunEnd(s, j);
    while ((s.At(k).cls & kNewline) || s.Byte(k) == '/') ++k;
    return k;
  }
  return Spaces(s, i, true);
}

// ASCII-only pieces, the bulk of English text and code, matched by byte loops before the general matchers:
// each returns the end of the piece at i when the regex's choice is plain from the bytes, or kFail to let the
// general matcher decide (an apostrophe that may start a contraction, white space, a run that reaches a
// non-ASCII byte and might go on in other scripts' letters or numbers).
bool AsciiLetter(unsigned char b) { return static_cast<unsigned char>((b | 0x20) - 'a') < 26; }
bool AsciiDigit(unsigned char b) { return static_cast<unsigned char>(b - '0') < 10; }

// The end of the run from j of ASCII bytes in [lo, hi] (after `| 0x20` when kFold: letters of either case).
// Sixteen bytes at a time where they lie before `end`: the first byte out of the range is found from a mask, so
// the run's end costs no mispredicted loop exit (a byte loop mispredicted once per word, and that was a fifth of
// the splitter's time on the shared corpora).
template <char kLo, char kHi, bool kFold>
size_t AsciiRunEnd(const unsigned char* s, size_t j, size_t end) {
  static_assert(kLo > 0 && kHi < 0x7F);
#if defined(__SSE2__)
  const __m128i below = _mm_set1_epi8(kLo - 1), above = _mm_set1_epi8(kHi + 1);
  while (j + 16 <= end) {
    __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j));
    if (kFold) bytes = _mm_or_si128(bytes, _mm_set1_epi8(0x20));
    // Bytes of 0x80 and up are negative here, so out of the range.
    const __m128i in = _mm_and_si128(_mm_cmpgt_epi8(bytes, below), _mm_cmplt_epi8(bytes, above));
    const auto out = static_cast<uint32_t>(~_mm_movemask_epi8(in)) & 0xFFFFu;
    if (out != 0) return j + static_cast<size_t>(__builtin_ctz(out));
    j += 16;
  }
#endif
  for (; j < end; ++j) {
    const unsigned char b = kFold ? (s[j] | 0x20) : s[j];
    if (b < kLo || b > kHi) break;
  }
  return j;
}

size_t LetterRunEnd(const unsigned char* s, size_t j, size_t end) { return AsciiRunEnd<'a', 'z', true>(s, j, end); }

// \p{N}{1,3} from a digit at i.
size_t FastThreeDigits(const unsigned char* s, size_t i, size_t end) {
  size_t j = i + 1;
  while (j < end && j < i + 3 && AsciiDigit(s[j])) ++j;
  if (j < i + 3 && j < end && s[j] >= 0x80) return kFail;
  return j;
}

// White space of the regexes (\s: the White_Space property) among ASCII bytes: \t \n \v \f \r and space.
bool AsciiSpace(unsigned char b) { return b == ' ' || static_cast<unsigned char>(b - '\t') < 5; }
// [^\s\p{L}\p{N}] among ASCII bytes: punctuation, symbols and controls.
bool AsciiOther(unsigned char b) { return b < 0x80 && !AsciiLetter(b) && !AsciiDigit(b) && !AsciiSpace(b); }

// \s+(?!\S)|\s+ over ASCII white space from i: the run, less its last character when two or more are followed by
// something else (it goes with what follows). With kNewlines (cl100k), \s*[\r\n] first: up to the run's last
// newline.
template <bool kNewlines>
size_t FastSpaces(const unsigned char* s, size_t i, size_t end) {
  size_t r = i, after_newline = 0;
  for (; r < end && AsciiSpace(s[r]); ++r) {
    if (kNewlines && (s[r] == '\r' || s[r] == '\n')) after_newline = r + 1;
  }
  if (r < end && s[r] >= 0x80) return kFail;  // other white space may go on
  if (after_newline != 0) return after_newline;
  if (r == end) return r;
  return r - i >= 2 ? r - 1 : r;
}

size_t FastGpt2(const unsigned char* s, size_t i, size_t end) {
  size_t j = i;
  if (s[j] == ' ' && j + 1 < end) ++j;
  const unsigned char b = s[j];
  if (AsciiLetter(b)) {
    j = LetterRunEnd(s, j + 1, end);
  } else if (AsciiDigit(b)) {
    do ++j;
    while (j < end && AsciiDigit(s[j]));
  } else if (AsciiOther(b) && (j > i || b != '\'')) {  // an apostrophe at i may start a contraction
    do ++j;
    while (j < end && AsciiOther(s[j]));
  } else if (AsciiSpace(b)) {
    return FastSpaces<false>(s, i, end);
  } else {
    return kFail;
  }
  return j < end && s[j] >= 0x80 ? kFail : j;
}

size_t FastCl100k(const unsigned char* s, size_t i, size_t end) {
  const unsigned char b = s[i];
  size_t j;
  if (AsciiLetter(b)) {
    j = LetterRunEnd(s, i + 1, end);
  } else if (AsciiDigit(b)) {
    return FastThreeDigits(s, i, end);
  } else if (b < 0x80 && b != '\'' && b != '\r' && b != '\n' && i + 1 < end && AsciiLetter(s[i + 1])) {
    j = LetterRunEnd(s, i + 2, end);  // [^\r\n\p{L}\p{N}]?\p{L}+ with an ASCII prefix
  } else if (b < 0x80 && (i + 1 == end || s[i + 1] < 0x80)) {  // (a letter of another script may follow a prefix)
    // ` ?[^\s\p{L}\p{N}]++[\r\n]*`; an apostrophe at i may start a contraction.
    j = b == ' ' && i + 1 < end && AsciiOther(s[i + 1]) ? i + 1 : i;
    if (AsciiOther(s[j]) && (j > i || b != '\'')) {
      do ++j;
      while (j < end && AsciiOther(s[j]));
      if (j < end && s[j] >= 0x80) return kFail;
      while (j < end && (s[j] == '\r' || s[j] == '\n')) ++j;
      return j;
    }
    return AsciiSpace(b) ? FastSpaces<true>(s, i, end) : kFail;
  } else {
    return kFail;
  }
  return j < end && s[j] >= 0x80 ? kFail : j;
}

size_t FastO200k(const unsigned char* s, size_t i, size_t end) {
  const unsigned char b = s[i];
  if (AsciiDigit(b)) return FastThreeDigits(s, i, end);
  size_t start = i;
  if (!AsciiLetter(b)) {
    if (b >= 0x80 || b == '\r' || b == '\n' || i + 1 >= end || !AsciiLetter(s[i + 1])) return kFail;
    start = i + 1;  // the optional prefix
  }
  size_t j = start;
  j = AsciiRunEnd<'A', 'Z', false>(s, j, end);
  j = AsciiRunEnd<'a', 'z', false>(s, j, end);
  // [Upper]*[Lower]+ or [Upper]+[Lower]*: ASCII upper letters are not Lower, so either way the piece is the
  // upper run then the lower run. A contraction or a non-ASCII byte next: the general matcher decides.
  if (j < end && (s[j] >= 0x80 || s[j] == '\'')) return kFail;
  return j;
}

#if defined(__SSE2__)
// gpt2's and cl100k's pieces over ASCII text, 64 bytes at a time, from bit masks of the byte classes rather than
// a match per piece: each piece's end was a mispredicted branch (its length follows no pattern), and the
// splitter was a quarter of `tokvec encode -m gpt2.tiktoken` (100 MB of the shared corpora, 1 thread: 0.62 s,
// 0.58-0.59 s with this). Over ASCII, away from contractions, each regex's pieces start at places the bytes
// around them decide (Gpt2Bounds, Cl100kBounds say where). A piece is known once the bytes on both sides of its
// end are: only boundaries up to two bytes before the first byte the masks cannot decide on are used (a byte
// that is not ASCII: a letter or space of another script may continue a run; an apostrophe that may start a
// contraction; for cl100k a fourth digit in a row, and white space after a newline), nor past the stretch's end
// and the window's. Returns the new position; stops where no boundary is known (the caller matches one piece)
// and when `capacity` pieces are out. tests/tokenizer/pre_tokenizers/preset_pre_tokenizer_test.cc checks both against the regexes.
struct ByteMasks {
  uint64_t letter, digit, space, white, newline, ascii, apostrophe;
};

inline ByteMasks ClassifyWindow(const unsigned char* p) {
  ByteMasks m{0, 0, 0, 0, 0, 0, 0};
  for (int c = 0; c < 4; ++c) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * c));
    const __m128i folded = _mm_or_si128(b, _mm_set1_epi8(0x20));
    // Bytes of 0x80 and up are negative: outside every range below.
    const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                         _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)),
                                        _mm_cmplt_epi8(b, _mm_set1_epi8('9' + 1)));
    const __m128i space = _mm_cmpeq_epi8(b, _mm_set1_epi8(' '));
    const __m128i white = _mm_or_si128(space, _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('\t' - 1)),
                                                            _mm_cmplt_epi8(b, _mm_set1_epi8('\r' + 1))));
    const __m128i newline =
        _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\r')));
    const __m128i apostrophe = _mm_cmpeq_epi8(b, _mm_set1_epi8('\''));
    const int shift = 16 * c;
    m.letter |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(letter))} << shift;
    m.digit |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(digit))} << shift;
    m.space |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(space))} << shift;
    m.white |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(white))} << shift;
    m.newline |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(newline))} << shift;
    m.ascii |= uint64_t{static_cast<uint16_t>(~_mm_movemask_epi8(b))} << shift;
    m.apostrophe |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(apostrophe))} << shift;
  }
  return m;
}

// Where pieces start, and the bytes the masks cannot decide on ("stop"), of a window. Bit i is byte i; bit 0,
// the window's first byte, starts a piece whatever its bit says (the caller's position).
struct WindowBounds {
  uint64_t starts, stop;
};

// gpt2 (` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+` and contractions): a piece starts at
//   - each run of letters, of digits, and of other characters, unless a space comes just before it (then the
//     piece starts at that space);
//   - each run of white space, and its last character when something else follows (\s+(?!\S) leaves that
//     character: a space then goes with what follows, any other one is a piece of its own).
// Stop at an apostrophe after anything but a space or another "other" character: a contraction may start there.
inline WindowBounds Gpt2Bounds(const ByteMasks& m) {
  const uint64_t other = m.ascii & ~(m.letter | m.digit | m.white);
  const uint64_t runs = (m.letter & ~(m.letter << 1)) | (m.digit & ~(m.digit << 1)) | (other & ~(other << 1));
  const uint64_t white_starts = m.white & ~(m.white << 1), white_lasts = m.white & ~(m.white >> 1);
  return {(runs & ~(m.space << 1)) | white_starts | white_lasts,
          ~m.ascii | (m.apostrophe & ~(other << 1) & ~(m.space << 1))};
}

// cl100k (`[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+` and
// contractions). With WS the white space other than \r and \n, a piece starts at
//   - each run of letters, or at the character before it when that is a "prefix": a WS character, or an other
//     character that starts its own piece (alone in its run, with no space before it, which would take it);
//   - each run of digits (runs of four and more are left to the matcher: {1,3});
//   - each run of other characters, or at the space just before it; the run takes the \r and \n after it;
//   - each run of white space (less the newlines an other run took), and its last character when that is WS:
//     after \s*[\r\n] takes up to the last newline, \s+(?!\S) leaves that character to what follows.
// Stop also at WS after a newline (that run's split needs the last newline of the run), and at an apostrophe as
// for gpt2.
inline WindowBounds Cl100kBounds(const ByteMasks& m) {
  const uint64_t other = m.ascii & ~(m.letter | m.digit | m.white);
  const uint64_t ws = m.white & ~m.newline;
  const uint64_t prefix = ws | (other & ~(other << 1) & ~(m.space << 1));
  const uint64_t letter_runs = m.letter & ~(m.letter << 1);
  const uint64_t other_runs = other & ~(other << 1);
  // Newlines right after an other run: adding each run's first bit carries through the run.
  const uint64_t taken = ((m.newline + (m.newline & (other << 1))) ^ m.newline) & m.newline;
  const uint64_t white = m.white & ~taken;
  // (Where a piece starts at the character before a run, that character's own start is already one: the last WS
  // character of its run, or its other run's start.)
  const uint64_t starts = (letter_runs & ~(prefix << 1)) | (m.digit & ~(m.digit << 1)) |
                          (other_runs & ~(m.space << 1)) | (white & ~(white << 1)) | (ws & ~(m.white >> 1));
  const uint64_t four_digits = m.digit & (m.digit << 1) & (m.digit << 2) & (m.digit << 3);
  return {starts, ~m.ascii | (m.apostrophe & ~(other << 1) & ~(m.space << 1)) | (ws & (m.newline << 1)) |
                      four_digits};
}

template <WindowBounds (*Bounds)(const ByteMasks&)>
size_t AsciiWindows(const unsigned char* s, size_t pos, size_t stretch_end, size_t text_size, Piece* pieces,
                    size_t* n, size_t capacity) {
  constexpr size_t kWindow = 64;
  while (*n < capacity && pos + kWindow <= text_size && pos < stretch_end && s[pos] < 0x80 && s[pos] != '\'') {
    const WindowBounds b = Bounds(ClassifyWindow(s + pos));
    uint64_t stop = b.stop;
    if (stretch_end - pos < kWindow) stop |= ~uint64_t{0} << (stretch_end - pos);
    const int known = stop == 0 ? 64 : __builtin_ctzll(stop);  // bytes [0, known) are usable
    if (known < 3) break;
    uint64_t bounds = b.starts & ((uint64_t{1} << (known - 1)) - 1) & ~uint64_t{1};  // at 1 .. known - 2
    if (bounds == 0) break;
    size_t start = pos;
    do {
      const size_t end = pos + static_cast<size_t>(__builtin_ctzll(bounds));
      pieces[(*n)++] = {start, end};
      start = end;
      bounds &= bounds - 1;
    } while (bounds != 0 && *n < capacity);
    pos = start;
  }
  return pos;
}
#endif

// Why this shape: the first version decoded each stretch into arrays of code points, classes and offsets before
// matching (40-67 MB/s on the 14.8 MB of shared corpora, loaded machine). Reading classes straight from the bytes
// and checking ASCII eight bytes at a time in Utf8ValidEnd: 130-152 MB/s; the ASCII fast paths above: 220-236 MB/s
// (PresetSplitterTest.EqualsTheRegexOnEverySharedCorpus prints the figure beside ICU's ~30 MB/s). On 100 MB of
// the corpora repeated, gpt2, in process: 0.31 s; with ASCII runs measured by masks (AsciiRunEnd), Utf8ValidEnd
// taking 32 ASCII bytes and common 2- and 3-byte sequences inline, and the BMP table read without a guard: 0.24 s.
class PresetSplitter : public PreTokenizer {
 public:
  PresetSplitter(Preset preset, std::string name) : preset_(preset), name_(std::move(name)) {}

  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override {
    Piece block[256];
    SplitCursor cursor;
    while (size_t n = SplitSome(text, &cursor, block, std::size(block))) {
      pieces->insert(pieces->end(), block, block + n);
    }
    return absl::OkStatus();
  }

  size_t SplitSome(std::string_view text, SplitCursor* cursor, Piece* pieces, size_t capacity) const override {
    switch (preset_) {
#if defined(__SSE2__)
      case Preset::kGpt2:
        return SplitSomeWith<FastGpt2, MatchGpt2, Gpt2Bounds>(text, cursor, pieces, capacity);
      case Preset::kCl100k:
        return SplitSomeWith<FastCl100k, MatchCl100k, Cl100kBounds>(text, cursor, pieces, capacity);
#else
      case Preset::kGpt2:
        return SplitSomeWith<FastGpt2, MatchGpt2>(text, cursor, pieces, capacity);
      case Preset::kCl100k:
        return SplitSomeWith<FastCl100k, MatchCl100k>(text, cursor, pieces, capacity);
#endif
      case Preset::kO200k:
        return SplitSomeWith<FastO200k, MatchO200k>(text, cursor, pieces, capacity);
    }
    return 0;
  }
  bool SplitsIncrementally() const override { return true; }

  std::string name() const override { return name_; }
  std::optional<std::string> SplitPattern() const override { return name_; }

  // Before an ASCII white-space byte that follows a letter or number: the piece holding that letter or number
  // is a run of letters or numbers (or o200k's word, whose contraction needs an apostrophe next), so it ends
  // there whatever follows, and every alternative at the white space looks only forward.
  size_t FindCut(std::string_view text, size_t limit) const override {
    if (text.empty()) return 0;
    for (size_t p = std::min(limit, text.size() - 1); p > 0; --p) {
      const unsigned char b = static_cast<unsigned char>(text[p]);
      if (b != ' ' && b != '\n' && b != '\r' && b != '\t') continue;
      size_t q = p - 1;  // The character ending at p - 1 starts at q.
      while (q > 0 && p - q < 4 && (static_cast<unsigned char>(text[q]) & 0xC0) == 0x80) --q;
      if (Utf8SequenceLength(text.substr(0, p), q) != p - q) continue;
      size_t len;
      const char32_t cp = DecodeWellFormedUtf8(text, q, &len);
      if (Classes(static_cast<UChar32>(cp)) & (kLetter | kNumber)) return p;
    }
    return 0;
  }
  bool FindsCuts() const override { return true; }

 private:
  // Well-formed stretches are matched piece by piece (Fast, else Match); an ill-formed byte is a piece of its
  // own, as in split_pre_tokenizer.h.
#if defined(__SSE2__)
  using BoundsFn = WindowBounds (*)(const ByteMasks&);
#else
  using BoundsFn = void*;
#endif
  template <size_t (*Fast)(const unsigned char*, size_t, size_t), size_t (*Match)(const Scanner&, size_t),
            BoundsFn Bounds = nullptr>
  static size_t SplitSomeWith(std::string_view text, SplitCursor* cursor, Piece* pieces, size_t capacity) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    size_t pos = cursor->pos, stretch_end = cursor->stretch_end, n = 0;
    while (n < capacity && pos < text.size()) {
      if (pos >= stretch_end) {
        stretch_end = Utf8ValidEnd(text, pos);
        if (stretch_end == pos) {
          pieces[n++] = {pos, pos + 1};
          ++pos;
          continue;
        }
      }
      const Scanner scanner(text, stretch_end);
      while (n < capacity && pos < stretch_end) {
#if defined(__SSE2__)
        if constexpr (Bounds != nullptr) {
          pos = AsciiWindows<Bounds>(bytes, pos, stretch_end, text.size(), pieces, &n, capacity);
          if (n == capacity || pos >= stretch_end) break;
        }
#endif
        size_t end = Fast(bytes, pos, stretch_end);
        if (end == kFail) end = Match(scanner, pos);
        pieces[n++] = {pos, end};
        pos = end;
      }
    }
    *cursor = {pos, stretch_end};
    return n;
  }

  Preset preset_;
  std::string name_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakePresetSplitter(std::string_view preset) {
  if (preset == "gpt2") return std::make_unique<PresetSplitter>(Preset::kGpt2, "gpt2");
  if (preset == "cl100k") return std::make_unique<PresetSplitter>(Preset::kCl100k, "cl100k");
  if (preset == "o200k") return std::make_unique<PresetSplitter>(Preset::kO200k, "o200k");
  return nullptr;
}

}  // namespace tokvec
