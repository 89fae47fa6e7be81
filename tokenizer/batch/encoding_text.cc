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
