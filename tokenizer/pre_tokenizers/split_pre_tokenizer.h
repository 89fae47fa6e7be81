// Byte-level pre-tokenization by a split pattern: tiktoken's presets or any ICU regular expression.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<PreTokenizer> split, MakeSplitPreTokenizer("cl100k"));
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(split->Split("Hello world!!", &pieces));  // "Hello" " world" "!!"
//
// Presets (the exact pattern strings of tiktoken 1.0.22, encoders/<name>.json `pat_str`):
//   gpt2   (also r50k, p50k, r50k_base, p50k_base)  GPT-2, GPT-3; Hugging Face's ByteLevel regex
//   cl100k (also cl100k_base)                        GPT-3.5, GPT-4
//   o200k  (also o200k_base)                         GPT-4o
// Any other string is compiled as an ICU regex (https://unicode-org.github.io/icu/userguide/strings/regexp.html).
//
// How text is cut:
//   1. The text is cut into maximal well-formed UTF-8 stretches (utf8.h); each byte that is not part of a
//      well-formed sequence becomes a piece of its own, so any bytes encode and decode gives them back.
//   2. Each stretch is matched left to right with RegexMatcher::find(); every non-empty match is a piece. Text
//      between matches (only possible with custom patterns: the presets match everything) is a piece too,
//      as Hugging Face's Split pre-tokenizer with behavior "Isolated" does.
// A stretch is matched on its own, so lookarounds do not see across an ill-formed byte.
//
// ICU matches UTF-16, so each stretch is converted once with a UTF-16 index -> byte offset map; ICU's regex
// engine on UTF-16 avoids the per-character UText callbacks it needs for UTF-8. `\s` is ICU's
// [\p{White_Space}], the same set as the Rust regex crates used by tiktoken and Hugging Face.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_SPLIT_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_SPLIT_PRE_TOKENIZER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/split_behavior.h"

namespace tokvec {

// The canonical preset name ("gpt2", "cl100k", "o200k") for a preset name or alias, else nullopt.
std::optional<std::string> CanonicalSplitPreset(std::string_view name);
// The regex of a canonical preset name, else nullopt.
std::optional<std::string> SplitPresetRegex(std::string_view name);

// A pre-tokenizer for a preset name (or alias) or an ICU regex. Its name() is the canonical preset name or
// the regex itself. Presets run hand-written splitters with the same pieces
// (preset_pre_tokenizer.h, many times faster than ICU). Errors: a regex ICU rejects (InvalidArgument naming the pattern, ICU's error and
// offset).
absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeSplitPreTokenizer(const std::string& preset_or_regex);
// The same, always through ICU's regex engine: the oracle of the hand-written splitters.
absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeRegexSplitPreTokenizer(const std::string& preset_or_regex);
// Hugging Face's Split: the matches of the regex (through ICU) and the text between them become pieces as
// `behavior` and `invert` say (split_behavior.h); an ill-formed byte is a segment of its own that is no match.
// Isolated without invert is MakeRegexSplitPreTokenizer.
absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeBehaviorSplitPreTokenizer(const std::string& preset_or_regex,
                                                                             SplitBehavior behavior, bool invert);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_SPLIT_PRE_TOKENIZER_H_
