#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/pre_tokenizers/preset_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/split_behavior.h"
#include "tokenizer/text/utf8.h"
#include "unicode/regex.h"
#include "unicode/unistr.h"
#include "unicode/utypes.h"

namespace tokvec {
namespace {

// tiktoken 1.0.22 encoders/{gpt2,cl100k_base,o200k_base}.json, `pat_str`.
constexpr std::string_view kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kCl100kRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kO200kRegex =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Each pre-tokenizer gets a distinct serial so a thread can cache one RegexMatcher per pre-tokenizer
// (RegexMatcher is not thread-safe; RegexPattern is).
std::atomic<uint64_t> next_serial{1};

class RegexSplitter : public PreTokenizer {
 public:
  RegexSplitter(std::string name, std::unique_ptr<icu::RegexPattern> pattern,
                SplitBehavior behavior = SplitBehavior::kIsolated, bool invert = false)
      : name_(std::move(name)), pattern_(std::move(pattern)), serial_(next_serial++), behavior_(behavior),
        invert_(invert) {}

  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override {
    if (behavior_ != SplitBehavior::kIsolated || invert_) return SplitWithBehavior(text, pieces);
    size_t pos = 0;
    while (pos < text.size()) {
      size_t valid_end = Utf8ValidEnd(text, pos);
      if (valid_end == pos) {  // An ill-formed byte: a piece of its own.
        pieces->push_back({pos, pos + 1});
        ++pos;
        continue;
      }
      absl::Status status = SplitValid(text, pos, valid_end, pieces);
      if (!status.ok()) return status;
      pos = valid_end;
    }
    return absl::OkStatus();
  }

  std::string name() const override { return name_; }
  std::optional<std::string> SplitPattern() const override {
    if (behavior_ != SplitBehavior::kIsolated || invert_) return std::nullopt;
    return name_;
  }

 private:
  // Hugging Face's Split with a behaviour: the segments of the whole text (matches, empty ones included, and
  // what lies between; an ill-formed byte is a segment that is no match) go through ApplySplitBehavior.
  absl::Status SplitWithBehavior(std::string_view text, std::vector<Piece>* pieces) const {
    thread_local std::vector<SplitSegment> segments;
    segments.clear();
    size_t covered = 0;
    auto on_match = [&](size_t match_begin, size_t match_end) {
      if (match_begin > covered) segments.push_back({covered, match_begin, false});
      segments.push_back({match_begin, match_end, true});
      covered = match_end;
    };
    size_t pos = 0;
    while (pos < text.size()) {
      size_t valid_end = Utf8ValidEnd(text, pos);
      if (valid_end == pos) {
        if (pos > covered) segments.push_back({covered, pos, false});
        segments.push_back({pos, pos + 1, false});
        covered = ++pos;
        continue;
      }
      TOKVEC_RETURN_IF_ERROR(MatchValid(text, pos, valid_end, on_match));
      pos = valid_end;
    }
    if (covered < text.size()) segments.push_back({covered, text.size(), false});
    ApplySplitBehavior(segments, behavior_, invert_, pieces);
    return absl::OkStatus();
  }

  // Splits the well-formed stretch text[begin, end): every non-empty match is a piece, and so is what lies
  // between matches.
  absl::Status SplitValid(std::string_view text, size_t begin, size_t end, std::vector<Piece>* pieces) const {
    size_t covered = begin;
    TOKVEC_RETURN_IF_ERROR(MatchValid(text, begin, end, [&](size_t piece_begin, size_t piece_end) {
      if (piece_begin == piece_end) return;
      if (piece_begin > covered) pieces->push_back({covered, piece_begin});
      pieces->push_back({piece_begin, piece_end});
      covered = piece_end;
    }));
    if (covered < end) pieces->push_back({covered, end});
    return absl::OkStatus();
  }

  // Calls on_match(begin, end) with the byte range of each match (empty ones too) in the well-formed stretch
  // text[begin, end), left to right.
  template <typename OnMatch>
  absl::Status MatchValid(std::string_view text, size_t begin, size_t end, OnMatch on_match) const {
    // 1. UTF-16 copy with the byte offset of every code unit (and of the end).
    thread_local std::vector<char16_t> units;
    thread_local std::vector<size_t> byte_at;
    units.clear();
    byte_at.clear();
    for (size_t i = begin; i < end;) {
      size_t len;
      const uint32_t cp = DecodeWellFormedUtf8(text, i, &len);
      if (cp < 0x10000) {
        units.push_back(static_cast<char16_t>(cp));
        byte_at.push_back(i);
      } else {
        units.push_back(static_cast<char16_t>(0xD7C0 + (cp >> 10)));
        units.push_back(static_cast<char16_t>(0xDC00 | (cp & 0x3FF)));
        byte_at.push_back(i);
        byte_at.push_back(i);
      }
      i += len;
    }
    byte_at.push_back(end);
    if (units.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
      return absl::InvalidArgumentError(fmt::format(
          "text of {} bytes at byte {} is too long to split in one piece; split the input (e.g. --lines)",
          end - begin, begin));
    }
    // 2. Match, reusing this thread's matcher for this pattern.
    UErrorCode status = U_ZERO_ERROR;
    icu::UnicodeString ustring(false, units.data(), static_cast<int32_t>(units.size()));  // Read-only alias.
    icu::RegexMatcher* matcher = ThreadMatcher(status);
    if (U_FAILURE(status)) {
      return absl::InternalError(fmt::format("ICU cannot make a matcher for '{}': {}", name_, u_errorName(status)));
    }
    matcher->reset(ustring);
    while (matcher->find(status) && U_SUCCESS(status)) {
      on_match(byte_at[matcher->start(status)], byte_at[matcher->end(status)]);
    }
    // Drop the alias before `units` changes.
    matcher->reset(icu::UnicodeString());
    if (U_FAILURE(status)) {
      return absl::ResourceExhaustedError(fmt::format("ICU regex '{}' failed at byte {}: {}", name_, begin,
                                                      u_errorName(status)));
    }
    return absl::OkStatus();
  }

  icu::RegexMatcher* ThreadMatcher(UErrorCode& status) const {
    struct Cache {
      uint64_t serial = 0;
      std::unique_ptr<icu::RegexMatcher> matcher;
    };
    thread_local Cache cache;
    if (cache.serial != serial_ || cache.matcher == nullptr) {
      cache.matcher.reset(pattern_->matcher(status));
      // No cap on the backtracking stack (ICU's default is 8 MB): `\s*[\r\n]+` over a megabyte of spaces
      // backtracks through every one of them. The stack lives on the heap and grows with the input.
      if (U_SUCCESS(status)) cache.matcher->setStackLimit(0, status);
      if (U_FAILURE(status)) {
        cache.serial = 0;
        return nullptr;
      }
      cache.serial = serial_;
    }
    return cache.matcher.get();
  }

  std::string name_;
  std::unique_ptr<icu::RegexPattern> pattern_;
  uint64_t serial_;
  SplitBehavior behavior_;
  bool invert_;
};

}  // namespace

std::optional<std::string> CanonicalSplitPreset(std::string_view name) {
  if (name == "gpt2" || name == "r50k" || name == "p50k" || name == "r50k_base" || name == "p50k_base") {
    return "gpt2";
  }
  if (name == "cl100k" || name == "cl100k_base") return "cl100k";
  if (name == "o200k" || name == "o200k_base") return "o200k";
  return std::nullopt;
}

std::optional<std::string> SplitPresetRegex(std::string_view name) {
  if (name == "gpt2") return std::string(kGpt2Regex);
  if (name == "cl100k") return std::string(kCl100kRegex);
  if (name == "o200k") return std::string(kO200kRegex);
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeSplitPreTokenizer(const std::string& preset_or_regex) {
  if (std::optional<std::string> preset = CanonicalSplitPreset(preset_or_regex)) {
    return MakePresetSplitter(*preset);  // same pieces as the regex, see preset_pre_tokenizer.h
  }
  return MakeRegexSplitPreTokenizer(preset_or_regex);
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeRegexSplitPreTokenizer(const std::string& preset_or_regex) {
  return MakeBehaviorSplitPreTokenizer(preset_or_regex, SplitBehavior::kIsolated, false);
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeBehaviorSplitPreTokenizer(const std::string& preset_or_regex,
                                                                             SplitBehavior behavior, bool invert) {
  if (preset_or_regex.empty()) {
    return absl::InvalidArgumentError("empty split pattern; use a preset (gpt2, cl100k, o200k) or an ICU regex");
  }
  std::string name = preset_or_regex;
  std::string regex = preset_or_regex;
  if (std::optional<std::string> preset = CanonicalSplitPreset(preset_or_regex)) {
    name = *preset;
    regex = *SplitPresetRegex(name);
  }
  UErrorCode status = U_ZERO_ERROR;
  UParseError parse_error{};
  std::unique_ptr<icu::RegexPattern> pattern(
      icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(regex), 0, parse_error, status));
  if (U_FAILURE(status)) {
    return absl::InvalidArgumentError(fmt::format(
        "split pattern '{}' is not a valid ICU regex: {} at line {}, offset {} (presets: gpt2, cl100k, o200k)",
        regex, u_errorName(status), parse_error.line, parse_error.offset));
  }
  return std::unique_ptr<PreTokenizer>(new RegexSplitter(std::move(name), std::move(pattern), behavior, invert));
}

}  // namespace tokvec
