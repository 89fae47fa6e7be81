#include "tokenizer/pre_tokenizers/unicode_scripts_pre_tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

struct ScriptRange {
  uint32_t first;
  uint32_t last;
  int script;
};

constexpr ScriptRange kScripts[] = {
#include "tokenizer/pre_tokenizers/unicode_scripts_table.inc"
};

}  // namespace

int HfScriptOf(char32_t c) {
  const auto* it = std::upper_bound(std::begin(kScripts), std::end(kScripts), static_cast<uint32_t>(c),
                                    [](uint32_t value, const ScriptRange& range) { return value < range.first; });
  if (it == std::begin(kScripts)) return -1;
  --it;
  return c <= it->last ? it->script : -1;
}

absl::Status UnicodeScriptsPreTokenizer::Split(std::string_view text, std::vector<Piece>* pieces) const {
  constexpr int kNone = -2;  // Before the first code point with a script.
  int last = kNone;
  size_t piece_begin = text.size();  // No piece started yet: text before the first script is dropped.
  for (size_t at = 0; at < text.size();) {
    size_t length;
    const char32_t c = DecodeUtf8OrReplacement(text, at, &length);
    const int script = HfScriptOf(c);
    if (script != -1) {
      if (script != last) {
        if (piece_begin < at) pieces->push_back({piece_begin, at});
        piece_begin = at;
      }
      last = script;
    }
    at += length;
  }
  if (piece_begin < text.size()) pieces->push_back({piece_begin, text.size()});
  return absl::OkStatus();
}

}  // namespace tokvec
