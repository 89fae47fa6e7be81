// What Hugging Face's Replace normalizer and Replace decoder look for: a literal string ({"String": "..."}) or
// a regular expression ({"Regex": "..."}, run by ICU here; Hugging Face uses Oniguruma, which agrees on the
// patterns tokenizer.json files use, such as " {2,}" or "▁").
//
//   TOKVEC_ASSIGN_OR_RETURN(TextPattern pattern, TextPattern::Literal(" "));
//   std::vector<TextPattern::Match> matches;
//   TOKVEC_RETURN_IF_ERROR(pattern.FindAll("a b c", &matches));  // {1, 2} {3, 4}
//
// Matches are byte ranges of the UTF-8 text, left to right, not overlapping; empty regex matches are skipped
// (replacing an empty match would insert text between characters, which no tokenizer.json relies on).
#ifndef TOKVEC_TOKENIZER_TEXT_TEXT_PATTERN_H_
#define TOKVEC_TOKENIZER_TEXT_TEXT_PATTERN_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "unicode/regex.h"

namespace tokvec {

class TextPattern {
 public:
  struct Match {
    size_t begin;
    size_t end;
  };

  // Errors: an empty string (InvalidArgument).
  static absl::StatusOr<TextPattern> Literal(std::string text);
  // Errors: a regex ICU cannot compile (InvalidArgument naming the offset), or one matching the empty string.
  static absl::StatusOr<TextPattern> Regex(const std::string& regex);

  TextPattern(TextPattern&&) noexcept;
  TextPattern& operator=(TextPattern&&) noexcept;
  ~TextPattern();

  // Appends the matches in `text` (UTF-8; invalid bytes never match a literal made of valid UTF-8).
  absl::Status FindAll(std::string_view text, std::vector<Match>* matches) const;
  // "String(...)" or "Regex(...)", for messages and `tokvec inspect`.
  std::string name() const;

 private:
  TextPattern() = default;
  std::string literal_;
  std::string regex_;
  std::shared_ptr<const icu::RegexPattern> pattern_;  // Regex only; RegexPattern is thread-safe.
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_TEXT_PATTERN_H_
