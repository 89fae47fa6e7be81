#include "tokenizer/batch/encoding_text.h"

#include <charconv>

#include "fmt/format.h"
#include "tokenizer/id_text.h"
#include "tokenizer/readable_token.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

std::string SpellToken(const Tokenizer& tokenizer, TokenId id, EncodingTextFormat format) {
  return format == EncodingTextFormat::kReadable ? ReadableToken(tokenizer, id) : tokenizer.TokenSpelling(id);
}

void AppendNumber(uint64_t value, std::string* out) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, result.ptr);
}

// Formatted into one buffer by WriteSpaceAndId (tokenizer/id_text.h): std::to_chars plus std::string::append per
// id took ~6% of `tokvec encode` (perf).
void AppendIds(const TokenId* ids, size_t n, bool space_first, std::string* out) {
  char buffer[4096];  // filled, then appended: no zero-fill of the output as resize would do
  char* p = buffer;
  const char* from = n > 0 && !space_first ? buffer + 1 : buffer;  // past the first id's space
  for (size_t i = 0; i < n; ++i) {
    if (p > buffer + sizeof(buffer) - 12) {
      out->append(from, static_cast<size_t>(p - from));
      p = buffer;
      from = buffer;
    }
    p = WriteSpaceAndId(p, ids[i]);
  }
  out->append(from, static_cast<size_t>(p - from));
}

void AppendJsonString(std::string_view text, std::string* out) {
  *out += '"';
  for (size_t i = 0; i < text.size();) {
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      size_t len = Utf8SequenceLength(text, i);
      if (len == 0) {
        *out += "\\ufffd";
        ++i;
      } else {
        out->append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    if (byte == '"' || byte == '\\') {
      *out += '\\';
      *out += static_cast<char>(byte);
    } else if (byte < 0x20) {
      *out += fmt::format("\\u{:04x}", byte);
    } else {
      *out += static_cast<char>(byte);
    }
    ++i;
  }
  *out += '"';
}

void AppendEncoding(const Tokenizer& tokenizer, const Encoding& encoding, EncodingTextFormat format, std::string* out) {
  const size_t n = encoding.ids.size();
  switch (format) {
    case EncodingTextFormat::kIds:
      AppendIds(encoding.ids.data(), n, /*space_first=*/false, out);
      break;
    case EncodingTextFormat::kTokens:
    case EncodingTextFormat::kReadable:
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ' ';
        *out += SpellToken(tokenizer, encoding.ids[i], format);
      }
      break;
    case EncodingTextFormat::kJson:
      *out += "{\"ids\": [";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        AppendNumber(encoding.ids[i], out);
      }
      *out += "], \"tokens\": [";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        AppendJsonString(tokenizer.TokenSpelling(encoding.ids[i]), out);
      }
      *out += "], \"offsets\": [";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        *out += '[';
        AppendNumber(encoding.offsets[i].begin, out);
        *out += ", ";
        AppendNumber(encoding.offsets[i].end, out);
        *out += ']';
      }
      *out += "]}";
      break;
  }
  *out += '\n';
}

namespace {

// `"key": [v, v, ...]` of `values`, each by `append`, after ", ".
template <typename T, typename Append>
void AppendJsonArray(const char* key, const std::vector<T>& values, Append append, std::string* out) {
  *out += ", \"";
  *out += key;
  *out += "\": [";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) *out += ", ";
    append(values[i]);
  }
  *out += ']';
}

// One encoding as a JSON object (no line end); windows inside when `windows`.
void AppendEncodedTokensJson(const Tokenizer& tokenizer, const EncodedTokens& rows, size_t b_begin, bool windows,
                             std::string* out) {
  Encoding encoding{.ids = rows.ids, .offsets = rows.offsets};
  for (size_t i = 0; i < encoding.offsets.size(); ++i) {
    if (rows.offset_texts[i] == 1) {
      encoding.offsets[i].begin += b_begin;
      encoding.offsets[i].end += b_begin;
    }
  }
  AppendEncoding(tokenizer, encoding, EncodingTextFormat::kJson, out);
  out->resize(out->size() - 2);  // "]}\n" becomes "]" and the keys below
  auto number = [&](uint64_t value) { AppendNumber(value, out); };
  AppendJsonArray("type_ids", rows.type_ids, number, out);
  AppendJsonArray("attention_mask", rows.attention_mask, number, out);
  AppendJsonArray("special_tokens_mask", rows.special_tokens_mask, number, out);
  AppendJsonArray("word_ids", rows.word_ids, [&](int32_t word) {
    if (word < 0) {
      *out += "null";
    } else {
      AppendNumber(static_cast<uint64_t>(word), out);
    }
  }, out);
  if (windows && !rows.overflowing.empty()) {
    *out += ", \"overflowing\": [";
    for (size_t i = 0; i < rows.overflowing.size(); ++i) {
      if (i > 0) *out += ", ";
      AppendEncodedTokensJson(tokenizer, rows.overflowing[i], b_begin, false, out);
    }
    *out += ']';
  }
  *out += '}';
}

}  // namespace

void AppendEncodedTokens(const Tokenizer& tokenizer, const EncodedTokens& rows, EncodingTextFormat format,
                         size_t b_begin, bool windows_as_lines, std::string* out) {
  if (format == EncodingTextFormat::kJson) {
    AppendEncodedTokensJson(tokenizer, rows, b_begin, true, out);
    *out += '\n';
    return;
  }
  AppendEncoding(tokenizer, Encoding{.ids = rows.ids}, format, out);
  if (!windows_as_lines) return;
  for (const EncodedTokens& window : rows.overflowing) AppendEncoding(tokenizer, Encoding{.ids = window.ids}, format, out);
}

std::vector<TokenId> SpecialIdsBefore(const Tokenizer& tokenizer) {
  const auto& post = tokenizer.spec().post_processor;
  return post != nullptr ? post->SingleBefore() : std::vector<TokenId>();
}
std::vector<TokenId> SpecialIdsAfter(const Tokenizer& tokenizer) {
  const auto& post = tokenizer.spec().post_processor;
  return post != nullptr ? post->SingleAfter() : std::vector<TokenId>();
}

std::string SpellAll(const Tokenizer& tokenizer, const std::vector<TokenId>& ids, EncodingTextFormat format) {
  std::string out;
  if (format == EncodingTextFormat::kIds) {
    AppendIds(ids.data(), ids.size(), /*space_first=*/false, &out);
    return out;
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ' ';
    out += SpellToken(tokenizer, ids[i], format);
  }
  return out;
}

}  // namespace tokvec
