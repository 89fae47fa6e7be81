#include "tokenizer/formats/tokenizer_json_vocab.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

void SkipSpace(std::string_view text, size_t* pos) {
  while (*pos < text.size() && IsJsonSpace(text[*pos])) ++*pos;
}

absl::Status ErrorAt(size_t pos, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("byte {}: {}", pos, what));
}

// "key 'KEY': byte N: what".
absl::Status KeyErrorAt(std::string_view key, size_t pos, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("key '{}': byte {}: {}", key, pos, what));
}

absl::Status WithKey(std::string_view key, const absl::Status& status) {
  return absl::InvalidArgumentError(fmt::format("key '{}': {}", key, std::string(status.message())));
}

// Bytes that end a plain run inside a string: the quote, the backslash, control characters and non-ASCII.
constexpr std::array<bool, 256> kStopsRun = [] {
  std::array<bool, 256> stops{};
  for (int c = 0; c < 256; ++c) stops[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return stops;
}();

// The value of the four hex digits at text[at], or -1.
int Hex4(std::string_view text, size_t at) {
  if (at + 4 > text.size()) return -1;
  int value = 0;
  for (size_t k = 0; k < 4; ++k) {
    const char c = text[at + k];
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

// A plain non-negative integer at text[*pos] (what the DOM reads as an unsigned number: no sign, fraction,
// exponent or leading zero, at most 2^64 - 1).
bool ScanUnsigned(std::string_view text, size_t* pos, uint64_t* value) {
  size_t i = *pos;
  auto digit_at = [&](size_t k) { return k < text.size() && text[k] >= '0' && text[k] <= '9'; };
  if (!digit_at(i) || (text[i] == '0' && digit_at(i + 1))) return false;
  uint64_t v = 0;
  for (; digit_at(i); ++i) {
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  if (i < text.size() && (text[i] == '.' || text[i] == 'e' || text[i] == 'E')) return false;
  *pos = i;
  *value = v;
  return true;
}

// Moves *pos past the string starting there without reading it (the DOM checks what is not diverted).
bool SkipString(std::string_view text, size_t* pos) {
  for (size_t i = *pos + 1; i < text.size();) {
    if (text[i] == '\\') {
      i += 2;
    } else if (text[i] == '"') {
      *pos = i + 1;
      return true;
    } else {
      ++i;
    }
  }
  return false;
}

// Reserving the arenas for what the rest of the text could hold: growing them by doubling copied every string
// again and touched twice the pages (on the Llama-3-shaped file of bench/load.sh the copies were a fifth of the
// page faults, and faults a fifth of the load). Untouched reserved pages cost nothing; the cap keeps a huge file
// from reserving several times its size.
constexpr size_t kMaxReserveBytes = size_t{64} << 20;
constexpr size_t kMinVocabEntryBytes = 6;  // "":0, and its separator
constexpr size_t kMinMergeBytes = 6;       // "a b", (two strings)

void ReserveForRest(size_t rest, size_t min_entry_bytes, size_t strings_per_entry, StringArena* arena) {
  const size_t bytes = std::min(rest, kMaxReserveBytes);
  arena->Reserve(bytes / min_entry_bytes * strings_per_entry, bytes);
}

// The string at text[*pos] appended to `arena` as its next string.
absl::Status ScanInto(std::string_view text, size_t* pos, StringArena* arena) {
  absl::Status status = ScanJsonString(text, pos, &arena->buffer());
  if (status.ok()) arena->Seal();
  return status;
}

// One merge at text[*pos]: "left right" or ["left", "right"]. A string is unescaped straight into the arena and
// cut at its space there (no copy through a scratch string).
absl::Status ScanMerge(std::string_view text, size_t* pos, FlatMerges* merges) {
  size_t i = *pos;
  if (text[i] == '"') {
    std::string& buffer = merges->sides.buffer();
    const size_t begin = buffer.size();
    absl::Status status = ScanJsonString(text, &i, &buffer);
    if (!status.ok()) return status;
    const std::string_view merge = std::string_view(buffer).substr(begin);
    const size_t space = merge.find(' ');
    if (space == std::string::npos || merge.find(' ', space + 1) != std::string::npos) {
      return ErrorAt(*pos, fmt::format("expected \"LEFT RIGHT\" (one space), got '{}'", merge.substr(0, 80)));
    }
    buffer.erase(begin + space, 1);
    merges->sides.SealTwo(begin + space);
    *pos = i;
    return absl::OkStatus();
  }
  if (text[i] != '[') return ErrorAt(i, "expected \"LEFT RIGHT\" or [\"LEFT\", \"RIGHT\"]");
  ++i;
  for (int side = 0; side < 2; ++side) {
    SkipSpace(text, &i);
    if (i >= text.size() || text[i] != '"') return ErrorAt(i, "expected [\"LEFT\", \"RIGHT\"]: two strings");
    absl::Status status = ScanInto(text, &i, &merges->sides);
    if (!status.ok()) return status;
    SkipSpace(text, &i);
    if (i >= text.size() || text[i] != (side == 0 ? ',' : ']')) {
      return ErrorAt(i, "expected [\"LEFT\", \"RIGHT\"]: two strings");
    }
    ++i;
  }
  *pos = i;
  return absl::OkStatus();
}

}  // namespace

absl::Status ScanJsonString(std::string_view text, size_t* pos, std::string* out) {
  size_t i = *pos;
  if (i >= text.size() || text[i] != '"') return ErrorAt(i, "expected a string");
  ++i;
  while (true) {
    const size_t run = i;
    while (i < text.size() && !kStopsRun[static_cast<unsigned char>(text[i])]) ++i;
    out->append(text.data() + run, i - run);
    if (i >= text.size()) return ErrorAt(i, "the text ends inside a string (truncated?)");
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"') {
      *pos = i + 1;
      return absl::OkStatus();
    }
    if (c < 0x20) return ErrorAt(i, fmt::format("control character 0x{:02X} in a string (JSON needs an escape)", c));
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(text, i);
      if (len == 0) return ErrorAt(i, fmt::format("ill-formed UTF-8 (byte 0x{:02X})", c));
      out->append(text.data() + i, len);
      i += len;
      continue;
    }
    // A backslash.
    if (i + 1 >= text.size()) return ErrorAt(i, "the text ends inside an escape (truncated?)");
    const char escaped = text[i + 1];
    char plain = 0;
    switch (escaped) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': break;
      default:
        return ErrorAt(i, fmt::format("unknown escape '\\{}'", escaped));
    }
    if (escaped != 'u') {
      out->push_back(plain);
      i += 2;
      continue;
    }
    const int unit = Hex4(text, i + 2);
    if (unit < 0) return ErrorAt(i, "\\u needs four hex digits");
    char32_t cp = static_cast<char32_t>(unit);
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      return ErrorAt(i, fmt::format("\\u{:04X} is a low surrogate without a high surrogate before it", unit));
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      const int low = i + 7 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u' ? Hex4(text, i + 8) : -1;
      if (low < 0xDC00 || low > 0xDFFF) {
        return ErrorAt(i, fmt::format("\\u{:04X} is a high surrogate without a low surrogate (\\uDC00-\\uDFFF) after it",
                                      unit));
      }
      cp = 0x10000 + ((static_cast<char32_t>(unit) - 0xD800) << 10) + (static_cast<char32_t>(low) - 0xDC00);
      i += 6;
    }
    AppendUtf8(cp, out);
    i += 6;
  }
}

absl::StatusOr<FlatVocab> ScanVocabObject(std::string_view text, size_t* pos, std::string_view key) {
  size_t i = *pos;
  if (i >= text.size() || text[i] != '{') return KeyErrorAt(key, i, "expected an object {\"spelling\": id}");
  ++i;
  FlatVocab vocab;
  ReserveForRest(text.size() - i, kMinVocabEntryBytes, 1, &vocab.spellings);
  vocab.ids.reserve(std::min(text.size() - i, kMaxReserveBytes) / kMinVocabEntryBytes);
  SkipSpace(text, &i);
  if (i < text.size() && text[i] == '}') {
    *pos = i + 1;
    return vocab;
  }
  while (true) {
    SkipSpace(text, &i);
    if (i >= text.size() || text[i] != '"') return KeyErrorAt(key, i, "expected a spelling in quotes");
    absl::Status status = ScanInto(text, &i, &vocab.spellings);
    if (!status.ok()) return WithKey(key, status);
    SkipSpace(text, &i);
    if (i >= text.size() || text[i] != ':') return KeyErrorAt(key, i, "expected ':' after a spelling");
    ++i;
    SkipSpace(text, &i);
    uint64_t id = 0;
    if (!ScanUnsigned(text, &i, &id)) {
      return KeyErrorAt(fmt::format("{}.{}", key, vocab.spellings[vocab.spellings.size() - 1]), i,
                        "the id must be a non-negative integer");
    }
    vocab.ids.push_back(id);
    SkipSpace(text, &i);
    if (i >= text.size()) return KeyErrorAt(key, i, "the text ends inside the object (truncated?)");
    if (text[i] == '}') {
      *pos = i + 1;
      return vocab;
    }
    if (text[i] != ',') return KeyErrorAt(key, i, "expected ',' or '}' after an id");
    ++i;
  }
}

absl::StatusOr<FlatMerges> ScanMergesArray(std::string_view text, size_t* pos, std::string_view key) {
  size_t i = *pos;
  if (i >= text.size() || text[i] != '[') return KeyErrorAt(key, i, "expected an array of merges");
  ++i;
  FlatMerges merges;
  ReserveForRest(text.size() - i, kMinMergeBytes, 2, &merges.sides);
  SkipSpace(text, &i);
  if (i < text.size() && text[i] == ']') {
    *pos = i + 1;
    return merges;
  }
  while (true) {
    SkipSpace(text, &i);
    if (i >= text.size()) return KeyErrorAt(key, i, "the text ends inside the array (truncated?)");
    const size_t index = merges.size();
    absl::Status status = ScanMerge(text, &i, &merges);
    if (!status.ok()) return WithKey(fmt::format("{}[{}]", key, index), status);
    SkipSpace(text, &i);
    if (i >= text.size()) return KeyErrorAt(key, i, "the text ends inside the array (truncated?)");
    if (text[i] == ']') {
      *pos = i + 1;
      return merges;
    }
    if (text[i] != ',') return KeyErrorAt(key, i, "expected ',' or ']' after a merge");
    ++i;
  }
}

HfModelTables DivertModelTables(std::string_view text) {
  // The walk: a stack of open containers; for objects, the role tells which keys matter (the top level's
  // "model", the model object's "vocab" and "merges"). Every other value is skipped by its structure only.
  enum class Role : uint8_t { kTop, kModel, kOther };
  struct Frame {
    bool object;
    Role role;
  };
  struct Span {
    size_t begin;
    size_t end;
  };
  HfModelTables tables;
  std::vector<Frame> stack;
  std::vector<Span> spans;
  int model_keys = 0;
  int vocab_keys = 0;
  int merges_keys = 0;
  const size_t n = text.size();
  size_t i = 0;
  SkipSpace(text, &i);
  if (i >= n || text[i] != '{') return {};
  stack.push_back({true, Role::kTop});
  ++i;
  bool at_start = true;  // Just after '{' or '[': the container may close at once.
  while (!stack.empty()) {
    const Frame frame = stack.back();
    const char close = frame.object ? '}' : ']';
    SkipSpace(text, &i);
    if (i >= n) return {};
    if (text[i] == close && at_start) {
      ++i;
      stack.pop_back();
      at_start = false;
      continue;
    }
    if (!at_start) {  // After a value: ',' then the next element, or the end of the container.
      if (text[i] == close) {
        ++i;
        stack.pop_back();
        continue;
      }
      if (text[i] != ',') return {};
      ++i;
      SkipSpace(text, &i);
      if (i >= n) return {};
    }
    at_start = false;
    std::string_view key;
    if (frame.object) {
      if (text[i] != '"') return {};
      const size_t key_begin = i + 1;
      if (!SkipString(text, &i)) return {};
      key = text.substr(key_begin, i - 1 - key_begin);
      // A key spelled with escapes could name "model" or "vocab" unseen: leave such files to the DOM.
      if (frame.role != Role::kOther && key.find('\\') != std::string_view::npos) return {};
      SkipSpace(text, &i);
      if (i >= n || text[i] != ':') return {};
      ++i;
      SkipSpace(text, &i);
      if (i >= n) return {};
    }
    if (frame.role == Role::kTop && key == "model") {
      if (++model_keys > 1) return {};
      if (text[i] == '{') {
        stack.push_back({true, Role::kModel});
        ++i;
        at_start = true;
        continue;
      }
    } else if (frame.role == Role::kModel && (key == "vocab" || key == "merges")) {
      const bool is_vocab = key == "vocab";
      if (++(is_vocab ? vocab_keys : merges_keys) > 1) return {};
      const size_t begin = i;
      if (is_vocab && text[i] == '{') {
        absl::StatusOr<FlatVocab> vocab = ScanVocabObject(text, &i, "model.vocab");
        if (!vocab.ok()) return {.scan_error = std::string(vocab.status().message())};
        tables.vocab = std::move(vocab).value();
        spans.push_back({begin, i});
        continue;
      }
      if (!is_vocab && text[i] == '[') {
        absl::StatusOr<FlatMerges> merges = ScanMergesArray(text, &i, "model.merges");
        if (!merges.ok()) return {.scan_error = std::string(merges.status().message())};
        tables.merges = std::move(merges).value();
        spans.push_back({begin, i});
        continue;
      }
    }
    // Skip any other value.
    const char c = text[i];
    if (c == '{' || c == '[') {
      stack.push_back({c == '{', Role::kOther});
      ++i;
      at_start = true;
    } else if (c == '"') {
      if (!SkipString(text, &i)) return {};
    } else {
      const size_t begin = i;
      while (i < n && !IsJsonSpace(text[i]) && text[i] != ',' && text[i] != '}' && text[i] != ']') ++i;
      if (i == begin) return {};
    }
  }
  if (spans.empty()) return {};
  if (spans.size() == 2 && spans[1].begin < spans[0].begin) std::swap(spans[0], spans[1]);
  size_t at = 0;
  for (const Span& span : spans) {
    tables.rest.append(text.data() + at, span.begin - at);
    tables.rest += "null";
    at = span.end;
  }
  tables.rest.append(text.data() + at, n - at);
  return tables;
}

}  // namespace tokvec
