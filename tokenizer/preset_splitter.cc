#include "tokenizer/preset_splitter.h"

#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/utf8.h"
#include "unicode/uchar.h"

namespace tokvec {
namespace {

enum class Preset { kGpt2, kCl100k, kO200k };

// Character classes of the regexes, one bit each.
enum : uint8_t {
  kLetter = 1,   // \p{L}
  kNumber = 2,   // \p{N}
  kSpace = 4,    // \s = White_Space
  kUpper = 8,    // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
  kLower = 16,   // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
  kNewline = 32  // [\r\n]
};

uint8_t ClassOf(UChar32 c) {
  const uint32_t mask = U_GET_GC_MASK(c);
  uint8_t bits = 0;
  if (mask & U_GC_L_MASK) bits |= kLetter;
  if (mask & U_GC_N_MASK) bits |= kNumber;
  if (u_hasBinaryProperty(c, UCHAR_WHITE_SPACE)) bits |= kSpace;
  if (mask & (U_GC_LU_MASK | U_GC_LT_MASK | U_GC_LM_MASK | U_GC_LO_MASK | U_GC_M_MASK)) bits |= kUpper;
  if (mask & (U_GC_LL_MASK | U_GC_LM_MASK | U_GC_LO_MASK | U_GC_M_MASK)) bits |= kLower;
  if (c == '\r' || c == '\n') bits |= kNewline;
  return bits;
}

// One well-formed stretch as code points with their classes and byte offsets.
struct Stretch {
  std::vector<UChar32> cps;
  std::vector<uint8_t> classes;
  std::vector<size_t> offsets;  // [cps.size() + 1]

  size_t size() const { return cps.size(); }
  bool Is(size_t i, uint8_t bits) const { return i < cps.size() && (classes[i] & bits) != 0; }
  // [^\s\p{L}\p{N}]
  bool IsOther(size_t i) const { return i < cps.size() && (classes[i] & (kSpace | kLetter | kNumber)) == 0; }
  // [^\r\n\p{L}\p{N}]
  bool IsPrefix(size_t i) const { return i < cps.size() && (classes[i] & (kNewline | kLetter | kNumber)) == 0; }
  size_t RunEnd(size_t i, uint8_t bits) const {
    while (Is(i, bits)) ++i;
    return i;
  }
};

constexpr size_t kFail = ~size_t{0};

// 's|'t|'re|'ve|'m|'ll|'d at i, case-sensitive or (?i:...) with simple case folding (ſ is s).
size_t Contraction(const Stretch& s, size_t i, bool ignore_case) {
  if (i >= s.size() || s.cps[i] != '\'') return kFail;
  auto is = [&](size_t k, char lower) {
    if (k >= s.size()) return false;
    UChar32 c = s.cps[k];
    if (c == lower) return true;
    if (!ignore_case) return false;
    return c == lower - 'a' + 'A' || (lower == 's' && c == 0x017F);
  };
  // The second letters differ, so the order of the alternatives does not matter.
  if (is(i + 1, 's') || is(i + 1, 't') || is(i + 1, 'm') || is(i + 1, 'd')) return i + 2;
  if ((is(i + 1, 'r') || is(i + 1, 'v')) && is(i + 2, 'e')) return i + 3;
  if (is(i + 1, 'l') && is(i + 2, 'l')) return i + 3;
  return kFail;
}

// \s*[\r\n]+ | \s+(?!\S) | \s+ at a white-space character i (the last three alternatives of cl100k and o200k;
// gpt2 has only the last two).
size_t Spaces(const Stretch& s, size_t i, bool newline_alternative) {
  const size_t run_end = s.RunEnd(i, kSpace);
  if (newline_alternative) {
    for (size_t p = run_end; p > i; --p) {
      if (s.Is(p - 1, kNewline)) return p;
    }
  }
  if (run_end == s.size()) return run_end;
  if (run_end - i >= 2) return run_end - 1;
  return run_end;
}

size_t MatchGpt2(const Stretch& s, size_t i) {
  if (size_t end = Contraction(s, i, false); end != kFail) return end;
  const size_t j = s.cps[i] == ' ' ? i + 1 : i;
  if (s.Is(j, kLetter)) return s.RunEnd(j, kLetter);
  if (s.Is(j, kNumber)) return s.RunEnd(j, kNumber);
  if (s.IsOther(j)) {
    size_t k = j;
    while (s.IsOther(k)) ++k;
    return k;
  }
  return Spaces(s, i, false);  // Only white space is left.
}

size_t MatchCl100k(const Stretch& s, size_t i) {
  if (size_t end = Contraction(s, i, true); end != kFail) return end;
  if (s.Is(i, kLetter)) return s.RunEnd(i, kLetter);
  if (s.IsPrefix(i) && s.Is(i + 1, kLetter)) return s.RunEnd(i + 1, kLetter);
  if (s.Is(i, kNumber)) {
    size_t k = i;
    while (k < i + 3 && s.Is(k, kNumber)) ++k;
    return k;
  }
  const size_t j = s.cps[i] == ' ' && s.IsOther(i + 1) ? i + 1 : i;
  if (s.IsOther(j)) {
    size_t k = j;
    while (s.IsOther(k)) ++k;
    return s.RunEnd(k, kNewline);
  }
  return Spaces(s, i, true);
}

// The body of o200k's first two alternatives from `start`, without the optional prefix:
// [Upper]*[Lower]+ (upper_first == false) or [Upper]+[Lower]* (upper_first == true), then a contraction.
size_t O200kWord(const Stretch& s, size_t start, bool upper_first) {
  const size_t upper_end = s.RunEnd(start, kUpper);
  size_t end;
  if (!upper_first) {
    // [Upper]* backs off until [Lower]+ can start: at the last Lower character at or before upper_end.
    size_t k = upper_end + 1;
    while (k > start && !s.Is(k - 1, kLower)) --k;
    if (k == start) return kFail;
    end = s.RunEnd(k - 1, kLower);
  } else {
    if (upper_end == start) return kFail;
    end = s.RunEnd(upper_end, kLower);
  }
  if (size_t contraction = Contraction(s, end, true); contraction != kFail) end = contraction;
  return end;
}

size_t MatchO200k(const Stretch& s, size_t i) {
  for (bool upper_first : {false, true}) {
    if (s.IsPrefix(i)) {
      if (size_t end = O200kWord(s, i + 1, upper_first); end != kFail) return end;
    }
    if (size_t end = O200kWord(s, i, upper_first); end != kFail) return end;
  }
  if (s.Is(i, kNumber)) {
    size_t k = i;
    while (k < i + 3 && s.Is(k, kNumber)) ++k;
    return k;
  }
  const size_t j = s.cps[i] == ' ' && s.IsOther(i + 1) ? i + 1 : i;
  if (s.IsOther(j)) {
    size_t k = j;
    while (s.IsOther(k)) ++k;
    while (s.Is(k, kNewline) || (k < s.size() && s.cps[k] == '/')) ++k;
    return k;
  }
  return Spaces(s, i, true);
}

class PresetSplitter : public PreTokenizer {
 public:
  PresetSplitter(Preset preset, std::string name) : preset_(preset), name_(std::move(name)) {}

  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override {
    thread_local Stretch stretch;
    for (size_t pos = 0; pos < text.size();) {
      const size_t valid_end = Utf8ValidEnd(text, pos);
      if (valid_end == pos) {  // An ill-formed byte: a piece of its own, as in split_pattern.h.
        pieces->push_back({pos, pos + 1});
        ++pos;
        continue;
      }
      Decode(text, pos, valid_end, &stretch);
      for (size_t i = 0; i < stretch.size();) {
        size_t end = preset_ == Preset::kGpt2     ? MatchGpt2(stretch, i)
                     : preset_ == Preset::kCl100k ? MatchCl100k(stretch, i)
                                                  : MatchO200k(stretch, i);
        pieces->push_back({stretch.offsets[i], stretch.offsets[end]});
        i = end;
      }
      pos = valid_end;
    }
    return absl::OkStatus();
  }

  std::string name() const override { return name_; }

 private:
  static void Decode(std::string_view text, size_t begin, size_t end, Stretch* s) {
    s->cps.clear();
    s->classes.clear();
    s->offsets.clear();
    for (size_t i = begin; i < end;) {
      const unsigned char lead = static_cast<unsigned char>(text[i]);
      UChar32 c;
      size_t len;
      if (lead < 0x80) {
        c = lead;
        len = 1;
      } else if (lead < 0xE0) {
        c = ((lead & 0x1F) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3F);
        len = 2;
      } else if (lead < 0xF0) {
        c = ((lead & 0x0F) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3F) << 6) |
            (static_cast<unsigned char>(text[i + 2]) & 0x3F);
        len = 3;
      } else {
        c = ((lead & 0x07) << 18) | ((static_cast<unsigned char>(text[i + 1]) & 0x3F) << 12) |
            ((static_cast<unsigned char>(text[i + 2]) & 0x3F) << 6) | (static_cast<unsigned char>(text[i + 3]) & 0x3F);
        len = 4;
      }
      s->cps.push_back(c);
      s->classes.push_back(Classes(c));
      s->offsets.push_back(i);
      i += len;
    }
    s->offsets.push_back(end);
  }

  // The Basic Multilingual Plane from a table built once (65,536 ICU lookups, a few milliseconds), the rest from
  // ICU: per-character ICU property calls made cl100k splitting ~43 MB/s on the shared corpora.
  static uint8_t Classes(UChar32 c) {
    static const uint8_t* bmp = [] {
      auto* table = new uint8_t[0x10000];
      for (UChar32 a = 0; a < 0x10000; ++a) table[a] = ClassOf(a);
      return table;
    }();
    return c < 0x10000 ? bmp[c] : ClassOf(c);
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
