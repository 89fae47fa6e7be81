// The oracle of Utf8ValidEnd in the tests and fuzz targets: the same question answered by ICU's U8_NEXT (strict:
// no overlong forms, surrogates or code points above U+10FFFF; it gives c < 0 for an ill-formed sequence).
#ifndef TOKVEC_TESTS_TOKENIZER_ICU_UTF8_ORACLE_H_
#define TOKVEC_TESTS_TOKENIZER_ICU_UTF8_ORACLE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "unicode/utf8.h"

namespace tokvec {

// The end of the longest well-formed stretch of `text` from `pos`, by ICU.
inline size_t IcuValidEnd(std::string_view text, size_t pos) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  auto i = static_cast<int32_t>(pos);
  while (i < length) {
    const int32_t start = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) return static_cast<size_t>(start);
  }
  return text.size();
}

}  // namespace tokvec

#endif  // TOKVEC_TESTS_TOKENIZER_ICU_UTF8_ORACLE_H_
