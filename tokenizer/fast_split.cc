#include "tokenizer/fast_split.h"

#include <unicode/uchar.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/utf8.h"

namespace tokvec {
namespace {

enum class CharClass : uint8_t { kLetter, kNumber, kSpace, kOther };

CharClass ClassifyCodePoint(uint32_t cp) {
  const UChar32 c = static_cast<UChar32>(cp);
  if (u_isUWhiteSpace(c)) return CharClass::kSpace;
  const uint32_t mask = U_GET_GC_MASK(c);
  if (mask & U_GC_L_MASK) return CharClass::kLetter;
  if (mask & U_GC_N_MASK) return CharClass::kNumber;
  return CharClass::kOther;
}

const std::array<CharClass, 128>& AsciiClasses() {
  static const std::array<CharClass, 128> table = [] {
    std::array<CharClass, 128> t{};
    for (uint32_t c = 0; c < 128; ++c) t[c] = ClassifyCodePoint(c);
    return t;
  }();
  return table;
}

// One decoded character of a well-formed stretch.
struct Char {
  size_t offset;    // byte offset in the text
  uint32_t cp;      // code point
  CharClass cls;
};

class FastGpt2Splitter : public PreTokenizer {
 public:
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override {
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t valid_end = Utf8ValidEnd(text, pos);
      if (valid_end == pos) {  // an ill-formed byte: a piece of its own
        pieces->push_back({pos, pos + 1});
        ++pos;
        continue;
      }
      SplitValid(text, pos, valid_end, pieces);
      pos = valid_end;
    }
    return absl::OkStatus();
  }

  std::string name() const override { return "gpt2"; }

 private:
  // Splits the well-formed stretch text[begin, end).
  static void SplitValid(std::string_view text, size_t begin, size_t end, std::vector<Piece>* pieces) {
    // 1. Decode once: offset, code point and class of every character (plus a sentinel at the end).
    thread_local std::vector<Char> chars;
    chars.clear();
    const std::array<CharClass, 128>& ascii = AsciiClasses();
    for (size_t i = begin; i < end;) {
      const unsigned char lead = static_cast<unsigned char>(text[i]);
      if (lead < 0x80) {
        chars.push_back({i, lead, ascii[lead]});
        ++i;
        continue;
      }
      size_t len;
      const uint32_t cp = DecodeWellFormedUtf8(text, i, &len);
      chars.push_back({i, cp, ClassifyCodePoint(cp)});
      i += len;
    }
    const size_t n = chars.size();
    chars.push_back({end, 0, CharClass::kOther});  // sentinel: offset of the end
    auto cp_at = [&](size_t k) { return k < n ? chars[k].cp : 0u; };
    auto run_end = [&](size_t k, CharClass cls) {
      while (k < n && chars[k].cls == cls) ++k;
      return k;
    };
    // 2. Match the alternatives in order at each character i; each step emits the piece [i, j).
    size_t i = 0;
    while (i < n) {
      const uint32_t c = chars[i].cp;
      size_t j = i;
      if (c == '\'') {  // 's 't 're 've 'm 'll 'd
        const uint32_t c1 = cp_at(i + 1), c2 = cp_at(i + 2);
        if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') {
          j = i + 2;
        } else if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) {
          j = i + 3;
        }
      }
      if (j == i) {
        // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: the optional space, then a run of one class.
        const size_t start = (c == ' ' && i + 1 < n) ? i + 1 : i;
        const CharClass cls = chars[start].cls;
        if (cls != CharClass::kSpace) {
          j = run_end(start, cls);
        } else {
          // `\s+(?!\S)` then `\s+`
          const size_t k = run_end(i, CharClass::kSpace);
          j = (k == n || k - i == 1) ? k : k - 1;
        }
      }
      pieces->push_back({chars[i].offset, chars[j].offset});
      i = j;
    }
  }
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeFastGpt2Splitter() { return std::make_unique<FastGpt2Splitter>(); }

}  // namespace tokvec
