#include "tokenizer/pre_tokenizers/char_class_pre_tokenizer.h"

#include "fmt/format.h"
#include "tokenizer/text/bert_unicode.h"
#include "tokenizer/text/utf8.h"
#include "unicode/uchar.h"

namespace tokvec {

absl::Status CharClassSplitter::Split(std::string_view text, std::vector<Piece>* pieces) const {
  thread_local std::vector<SplitSegment> segments;
  segments.clear();
  size_t covered = 0;
  for (size_t at = 0; at < text.size();) {
    size_t length;
    const char32_t c = DecodeUtf8OrReplacement(text, at, &length);
    if (in_class_(c)) {
      if (at > covered) segments.push_back({covered, at, false});
      segments.push_back({at, at + length, true});
      covered = at + length;
    }
    at += length;
  }
  if (covered < text.size()) segments.push_back({covered, text.size(), false});
  ApplySplitBehavior(segments, behavior_, /*invert=*/false, pieces);
  return absl::OkStatus();
}

std::unique_ptr<PreTokenizer> MakeDigitsSplitter(bool individual_digits) {
  auto numeric = [](char32_t c) {
    const int8_t type = u_charType(static_cast<UChar32>(c));
    return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
  };
  return std::make_unique<CharClassSplitter>(individual_digits ? "Digits(individual)" : "Digits", numeric,
                                             individual_digits ? SplitBehavior::kIsolated : SplitBehavior::kContiguous);
}

std::unique_ptr<PreTokenizer> MakePunctuationSplitter(SplitBehavior behavior) {
  return std::make_unique<CharClassSplitter>(fmt::format("Punctuation({})", SplitBehaviorName(behavior)),
                                             IsBertPunctuation, behavior);
}

std::unique_ptr<PreTokenizer> MakeWhitespaceSplitSplitter() {
  return std::make_unique<CharClassSplitter>("WhitespaceSplit", IsBertWhitespace, SplitBehavior::kRemoved);
}

std::unique_ptr<PreTokenizer> MakeCharDelimiterSplitter(char32_t delimiter) {
  return std::make_unique<CharClassSplitter>(fmt::format("CharDelimiterSplit(U+{:04X})", static_cast<uint32_t>(delimiter)),
                                             [delimiter](char32_t c) { return c == delimiter; },
                                             SplitBehavior::kRemoved);
}

}  // namespace tokvec
