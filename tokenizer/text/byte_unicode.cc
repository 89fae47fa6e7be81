#include "tokenizer/text/byte_unicode.h"

#include <array>

namespace tokvec {
namespace {

struct ByteUnicodeTables {
  std::array<char32_t, 256> code_point_of_byte;  // byte -> code point
  std::array<int, 512> byte_of_code_point;       // code point (< 512) -> byte, or -1
};

const ByteUnicodeTables& Tables() {
  static const ByteUnicodeTables tables = [] {
    ByteUnicodeTables t;
    t.byte_of_code_point.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t.code_point_of_byte[b] = printable ? static_cast<char32_t>(b) : next++;
      t.byte_of_code_point[t.code_point_of_byte[b]] = b;
    }
    return t;
  }();
  return tables;
}

}  // namespace

std::string BytesToUnicode(std::string_view bytes) {
  const ByteUnicodeTables& t = Tables();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    char32_t cp = t.code_point_of_byte[b];
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else {  // All code points here are below U+0800: two UTF-8 bytes.
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  return out;
}

std::optional<std::string> UnicodeToBytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  if (!AppendUnicodeToBytes(text, &out)) return std::nullopt;
  return out;
}

bool AppendUnicodeToBytes(std::string_view text, std::string* out) {
  const ByteUnicodeTables& t = Tables();
  for (size_t i = 0; i < text.size();) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    char32_t cp;
    if (lead < 0x80) {
      cp = lead;
      i += 1;
    } else if ((lead >> 5) == 0x6 && i + 1 < text.size() &&
               (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80) {
      cp = (static_cast<char32_t>(lead & 0x1F) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3F);
      i += 2;
    } else {
      return false;
    }
    if (cp >= t.byte_of_code_point.size() || t.byte_of_code_point[cp] < 0) return false;
    out->push_back(static_cast<char>(t.byte_of_code_point[cp]));
  }
  return true;
}

}  // namespace tokvec
