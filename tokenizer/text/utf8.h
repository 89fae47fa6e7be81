// Strict UTF-8 validation (Unicode 15, Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
//
//   Utf8SequenceLength("é", 0) == 2;  Utf8SequenceLength("\xC3", 0) == 0 (truncated);  "\xED\xA0\x80" -> 0
//
// Byte-level pre-tokenizers and normalizers work on the well-formed stretches of their input and pass every
// byte that is not part of a well-formed sequence through on its own, so any bytes encode and decode back.
#ifndef TOKVEC_TOKENIZER_TEXT_UTF8_H_
#define TOKVEC_TOKENIZER_TEXT_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace tokvec {

// The length (1..4) of the well-formed UTF-8 sequence starting at `text[pos]`, or 0 when the bytes there do not
// start one.
size_t Utf8SequenceLength(std::string_view text, size_t pos);

// The length (>= 1) of the maximal subpart of an ill-formed sequence starting at `text[pos]` (Unicode 15, 3.9: the
// longest prefix of a well-formed sequence that is there, or one byte): what one U+FFFD replaces, as in Rust's
// String::from_utf8_lossy. Callers pass a position where Utf8SequenceLength is 0.
//
//   Utf8MaximalSubpart("\xE2\x82A", 0) == 2;  Utf8MaximalSubpart("\xED\xA0\x80", 0) == 1 (a surrogate's lead)
size_t Utf8MaximalSubpart(std::string_view text, size_t pos);

// The end of the longest well-formed stretch of `text` starting at `pos` (== pos when text[pos] is ill-formed).
// Whole blocks of 32 bytes at a time where the CPU has AVX2.
size_t Utf8ValidEnd(std::string_view text, size_t pos);
// The same, a byte (or a word of ASCII) at a time on any CPU: what tests compare the AVX2 blocks with.
size_t Utf8ValidEndPortable(std::string_view text, size_t pos);

// The code point of the well-formed sequence starting at `text[pos]` (callers validated it), and its length in
// `*len`. Hot path of the split-pattern scanners: no checks.
inline char32_t DecodeWellFormedUtf8(std::string_view text, size_t pos, size_t* len) {
  const auto byte = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(text[pos + k])); };
  const char32_t lead = byte(0);
  if (lead < 0x80) {
    *len = 1;
    return lead;
  }
  if (lead < 0xE0) {
    *len = 2;
    return ((lead & 0x1F) << 6) | (byte(1) & 0x3F);
  }
  if (lead < 0xF0) {
    *len = 3;
    return ((lead & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
  }
  *len = 4;
  return ((lead & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F);
}

// Appends the UTF-8 form of code point `cp` (at most U+10FFFF) to `out`.
void AppendUtf8(char32_t cp, std::string* out);

// The characters of UTF-8 `text`: its bytes that are not continuation bytes (10xxxxxx).
inline size_t Utf8Characters(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The code point at `text[pos]` and its length in `*len`; a byte that does not start a well-formed sequence is
// U+FFFD of length 1 (for scanners that classify code points of text that need not be UTF-8).
inline char32_t DecodeUtf8OrReplacement(std::string_view text, size_t pos, size_t* len) {
  if (Utf8SequenceLength(text, pos) == 0) {
    *len = 1;
    return U'\uFFFD';
  }
  return DecodeWellFormedUtf8(text, pos, len);
}

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_UTF8_H_
