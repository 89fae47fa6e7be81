#include "tokenizer/text/bert_unicode.h"

#include <algorithm>
#include <iterator>

#include "unicode/uchar.h"

namespace tokvec {
namespace {

struct CodePointRange {
  char32_t first;
  char32_t last;  // Inclusive.
};

#include "tokenizer/text/bert_unicode_tables.inc"

template <size_t N>
bool InRanges(const CodePointRange (&ranges)[N], char32_t c) {
  const CodePointRange* it = std::upper_bound(std::begin(ranges), std::end(ranges), c,
                                              [](char32_t value, const CodePointRange& r) { return value < r.first; });
  return it != std::begin(ranges) && c <= (it - 1)->last;
}

}  // namespace

bool IsBertDropped(char32_t c) { return InRanges(kBertDropped, c); }

bool IsBertWhitespace(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
  return u_isUWhiteSpace(static_cast<UChar32>(c));
}

bool IsBertPunctuation(char32_t c) {
  if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return InRanges(kBertPunctuation, c);
}

bool IsNonspacingMark(char32_t c) { return c >= 0x300 && InRanges(kNonspacingMark, c); }

bool IsBertStripMark(char32_t c) { return c >= 0x300 && InRanges(kBertStripMark, c); }

bool IsChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

}  // namespace tokvec
