#include "tokenizer/added_token_matcher.h"

#include <algorithm>
#include <deque>
#include <limits>

#include "tokenizer/text/utf8.h"
#include "unicode/uchar.h"

namespace tokvec {
namespace {

constexpr int32_t kNone = -1;
constexpr char32_t kNoChar = 0xFFFFFFFF;

// The code point starting at text[pos], kNoChar when the bytes there are not well-formed UTF-8.
char32_t CharAt(std::string_view text, size_t pos, size_t* len) {
  *len = Utf8SequenceLength(text, pos);
  if (*len == 0) {
    *len = 1;
    return kNoChar;
  }
  return DecodeWellFormedUtf8(text, pos, len);
}

// The code point ending right before text[end] (kNoChar when none is well-formed there), its length in `*len`.
char32_t CharBefore(std::string_view text, size_t end, size_t* len) {
  for (size_t back = 1; back <= 4 && back <= end; ++back) {
    const size_t at = end - back;
    if (Utf8SequenceLength(text, at) == back) return DecodeWellFormedUtf8(text, at, len);
  }
  *len = 1;
  return kNoChar;
}

// Rust regex's \w (Unicode): Alphabetic, M, Nd, Pc, Join_Control.
bool IsWordChar(char32_t c) {
  if (c == kNoChar) return false;
  const UChar32 u = static_cast<UChar32>(c);
  if (u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL)) return true;
  const int8_t type = u_charType(u);
  return type == U_NON_SPACING_MARK || type == U_COMBINING_SPACING_MARK || type == U_ENCLOSING_MARK ||
         type == U_DECIMAL_DIGIT_NUMBER || type == U_CONNECTOR_PUNCTUATION;
}

// Rust's char::is_whitespace: Unicode White_Space.
bool IsSpace(char32_t c) { return c != kNoChar && u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE); }

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<Pattern> patterns) : patterns_(std::move(patterns)) {
  // 1. Byte classes: each byte used by a pattern gets its own class; all others share class 0.
  for (const Pattern& pattern : patterns_) {
    for (unsigned char c : pattern.text) {
      if (byte_class_[c] == 0) byte_class_[c] = static_cast<uint16_t>(classes_++);
    }
  }
  // 2. The trie; a state's output is the pattern spelled by its prefix (first one wins).
  next_.assign(classes_, 0);
  depth_.assign(1, 0);
  output_.assign(1, kNone);
  for (size_t p = 0; p < patterns_.size(); ++p) {
    uint32_t state = 0;
    for (unsigned char c : patterns_[p].text) {
      uint32_t& child = next_[state * classes_ + byte_class_[c]];
      if (child == 0) {
        child = static_cast<uint32_t>(depth_.size());
        depth_.push_back(depth_[state] + 1);
        output_.push_back(kNone);
        next_.resize(next_.size() + classes_, 0);
      }
      state = next_[state * classes_ + byte_class_[c]];
    }
    if (!patterns_[p].text.empty() && output_[state] == kNone) output_[state] = static_cast<int32_t>(p);
  }
  // 3. Failure links, breadth first, folded into a complete DFA; a state without its own output takes its
  // failure state's (the longest pattern that is a proper suffix of its prefix).
  std::vector<uint32_t> fail(depth_.size(), 0);
  std::deque<uint32_t> queue;
  for (size_t k = 0; k < classes_; ++k) {
    if (next_[k] != 0) queue.push_back(next_[k]);
  }
  while (!queue.empty()) {
    const uint32_t state = queue.front();
    queue.pop_front();
    if (output_[state] == kNone) output_[state] = output_[fail[state]];
    for (size_t k = 0; k < classes_; ++k) {
      uint32_t& child = next_[state * classes_ + k];
      const uint32_t via_fail = next_[fail[state] * classes_ + k];
      if (child != 0) {
        fail[child] = via_fail;
        queue.push_back(child);
      } else {
        child = via_fail;
      }
    }
  }
}

std::pair<size_t, int32_t> AddedTokenMatcher::FindNext(std::string_view text, size_t from) const {
  size_t best_begin = std::string_view::npos;
  int32_t best = kNone;
  uint32_t state = 0;
  for (size_t i = from; i < text.size(); ++i) {
    state = next_[state * classes_ + byte_class_[static_cast<unsigned char>(text[i])]];
    const int32_t out = output_[state];
    if (out != kNone) {
      const size_t length = patterns_[static_cast<size_t>(out)].text.size();
      const size_t begin = i + 1 - length;
      if (begin < best_begin || (begin == best_begin && length > patterns_[static_cast<size_t>(best)].text.size())) {
        best_begin = begin;
        best = out;
      }
    }
    // Any later match starts at or after i + 1 - depth: none can start at or before the best any more.
    if (best != kNone && i + 1 - depth_[state] > best_begin) break;
  }
  return {best_begin, best};
}

void AddedTokenMatcher::FindAll(std::string_view text, std::vector<Match>* out) const {
  if (patterns_.empty()) return;
  size_t previous_end = 0;  // where the last match (with its stripped space) ended
  for (size_t from = 0; from < text.size();) {
    const auto [begin, index] = FindNext(text, from);
    if (index == kNone) break;
    const Pattern& pattern = patterns_[static_cast<size_t>(index)];
    size_t end = begin + pattern.text.size();
    from = end;
    size_t len = 0;
    if (pattern.flags.single_word) {
      const bool word_before = begin > 0 && IsWordChar(CharBefore(text, begin, &len));
      const bool word_after = end < text.size() && IsWordChar(CharAt(text, end, &len));
      if (word_before || word_after) continue;
    }
    size_t start = begin;
    if (pattern.flags.lstrip) {
      while (start > 0 && IsSpace(CharBefore(text, start, &len))) start -= len;
      start = std::min(std::max(start, previous_end), end);
    }
    // As Hugging Face, the search resumes at the token's end even when rstrip took the white space after it,
    // so the next match may overlap the taken space.
    if (pattern.flags.rstrip) {
      while (end < text.size() && IsSpace(CharAt(text, end, &len))) end += len;
    }
    out->push_back({start, end, pattern.id});
    previous_end = end;
  }
}

}  // namespace tokvec
