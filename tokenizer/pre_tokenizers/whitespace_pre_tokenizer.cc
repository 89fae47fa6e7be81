#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"

#include <algorithm>

#include "fmt/format.h"
#include "unicode/uchar.h"
#include "unicode/utf8.h"

namespace tokvec {
namespace {

// ASCII White_Space: U+0009..U+000D and U+0020. Checked without ICU because almost every byte is ASCII.
bool IsAsciiWhiteSpace(unsigned char byte) { return byte == ' ' || (byte >= 0x09 && byte <= 0x0D); }

}  // namespace

absl::Status WhitespacePreTokenizer::Split(std::string_view text, std::vector<Piece>* pieces) const {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t length = static_cast<int32_t>(text.size());
  if (text.size() > static_cast<size_t>(INT32_MAX)) {
    return absl::InvalidArgumentError(
        fmt::format("text of {} bytes is too long to split at once; split it into lines", text.size()));
  }
  int32_t i = 0;
  int32_t word_begin = -1;  // Start of the current word, or -1 between words.
  while (i < length) {
    const int32_t at = i;
    bool white;
    if (bytes[i] < 0x80) {
      white = IsAsciiWhiteSpace(bytes[i]);
      ++i;
    } else {
      UChar32 c;
      U8_NEXT(bytes, i, length, c);
      if (c < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "invalid UTF-8 at byte offset {} (byte 0x{:02X}); word models need UTF-8 text", at, bytes[at]));
      }
      white = u_isUWhiteSpace(c);
    }
    if (white) {
      if (word_begin >= 0) pieces->push_back({static_cast<size_t>(word_begin), static_cast<size_t>(at)});
      word_begin = -1;
    } else if (word_begin < 0) {
      word_begin = at;
    }
  }
  if (word_begin >= 0) pieces->push_back({static_cast<size_t>(word_begin), text.size()});
  return absl::OkStatus();
}

std::optional<size_t> FindInvalidUtf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  // U8_NEXT works on int32_t lengths; walk huge texts in windows of 1 GiB, restarting at a character boundary.
  size_t base = 0;
  while (base < text.size()) {
    const int32_t length = static_cast<int32_t>(std::min<size_t>(text.size() - base, size_t{1} << 30));
    const bool last_window = base + length == text.size();
    int32_t i = 0;
    int32_t resume = length;
    while (i < length) {
      if (bytes[base + i] < 0x80) {
        ++i;
        continue;
      }
      const int32_t at = i;
      UChar32 c;
      U8_NEXT(bytes + base, i, length, c);
      if (c < 0) {
        if (!last_window && length - at < 4) {  // The sequence may continue past the window.
          resume = at;
          break;
        }
        return base + at;
      }
    }
    base += resume;
  }
  return std::nullopt;
}

size_t WhitespacePreTokenizer::FindCut(std::string_view text, size_t limit) const {
  if (text.empty()) return 0;
  for (size_t p = std::min(limit, text.size() - 1); p > 0; --p) {
    const char b = text[p];
    if (b == ' ' || b == '\n' || b == '\r' || b == '\t') return p;
  }
  return 0;
}

}  // namespace tokvec
