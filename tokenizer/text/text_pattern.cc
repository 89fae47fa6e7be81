#include "tokenizer/text/text_pattern.h"

#include <utility>

#include "fmt/format.h"
#include "tokenizer/text/utf8.h"
#include "unicode/regex.h"
#include "unicode/unistr.h"

namespace tokvec {

TextPattern::TextPattern(TextPattern&&) noexcept = default;
TextPattern& TextPattern::operator=(TextPattern&&) noexcept = default;
TextPattern::~TextPattern() = default;

absl::StatusOr<TextPattern> TextPattern::Literal(std::string text) {
  if (text.empty()) return absl::InvalidArgumentError("the pattern string is empty");
  TextPattern pattern;
  pattern.literal_ = std::move(text);
  return pattern;
}

absl::StatusOr<TextPattern> TextPattern::Regex(const std::string& regex) {
  UErrorCode status = U_ZERO_ERROR;
  UParseError parse_error;
  std::unique_ptr<icu::RegexPattern> compiled(
      icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(regex), 0, parse_error, status));
  if (U_FAILURE(status)) {
    return absl::InvalidArgumentError(fmt::format("regex '{}' does not compile (ICU: {} at offset {})", regex,
                                                  u_errorName(status), parse_error.offset));
  }
  std::unique_ptr<icu::RegexMatcher> probe(compiled->matcher(icu::UnicodeString(), status));
  if (U_SUCCESS(status) && probe->matches(status)) {
    return absl::InvalidArgumentError(fmt::format("regex '{}' matches the empty string", regex));
  }
  TextPattern pattern;
  pattern.regex_ = regex;
  pattern.pattern_ = std::move(compiled);
  return pattern;
}

std::string TextPattern::name() const {
  return pattern_ == nullptr ? fmt::format("String({})", literal_) : fmt::format("Regex({})", regex_);
}

absl::Status TextPattern::FindAll(std::string_view text, std::vector<Match>* matches) const {
  if (pattern_ == nullptr) {
    for (size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at)) {
      matches->push_back({at, at + literal_.size()});
      at += literal_.size();
    }
    return absl::OkStatus();
  }
  // UTF-16 for ICU, with the byte offset of each code unit (and of the end); invalid bytes become U+FFFD.
  std::u16string units;
  std::vector<size_t> byte_at;
  units.reserve(text.size());
  byte_at.reserve(text.size() + 1);
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = Utf8SequenceLength(text, pos);
    char32_t c = 0xFFFD;
    size_t step = 1;
    if (length != 0) {
      size_t decoded = 0;
      c = DecodeWellFormedUtf8(text, pos, &decoded);
      step = length;
    }
    if (c >= 0x10000) {
      units.push_back(static_cast<char16_t>(0xD800 + ((c - 0x10000) >> 10)));
      byte_at.push_back(pos);
      units.push_back(static_cast<char16_t>(0xDC00 + ((c - 0x10000) & 0x3FF)));
      byte_at.push_back(pos);
    } else {
      units.push_back(static_cast<char16_t>(c));
      byte_at.push_back(pos);
    }
    pos += step;
  }
  byte_at.push_back(text.size());
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString ustring(false, units.data(), static_cast<int32_t>(units.size()));
  std::unique_ptr<icu::RegexMatcher> matcher(pattern_->matcher(ustring, status));
  if (U_SUCCESS(status)) matcher->setStackLimit(0, status);
  while (U_SUCCESS(status) && matcher->find(status) && U_SUCCESS(status)) {
    const int32_t start = matcher->start(status);
    const int32_t stop = matcher->end(status);
    if (start != stop) matches->push_back({byte_at[start], byte_at[stop]});
  }
  if (U_FAILURE(status)) {
    return absl::ResourceExhaustedError(fmt::format("ICU regex '{}' failed: {}", regex_, u_errorName(status)));
  }
  return absl::OkStatus();
}

}  // namespace tokvec
