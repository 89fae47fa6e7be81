#include "tokenizer/formats/text_escape.h"

#include "absl/strings/numbers.h"
#include "fmt/format.h"
#include "tokenizer/text/utf8.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

std::string EscapeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t len = Utf8SequenceLength(text, i);
    unsigned char byte = static_cast<unsigned char>(text[i]);
    if (len > 1) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    switch (byte) {
      case '\\': out += "\\\\"; break;
      case ' ': out += "\\s"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (len == 0 || byte < 0x20 || byte == 0x7F) {
          out += fmt::format("\\x{:02X}", byte);
        } else {
          out += static_cast<char>(byte);
        }
    }
    ++i;
  }
  return out;
}

std::optional<std::string> UnescapeText(std::string_view field, bool word_token, std::string* error) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (word_token && field.substr(i, kEndOfWordSpelling.size()) == kEndOfWordSpelling) {
      if (i + kEndOfWordSpelling.size() != field.size()) {
        *error = "`</w>` may only end a token (write a literal `</w>` as `<\\/w>`)";
        return std::nullopt;
      }
      out += kEndOfWordByte;
      return out;
    }
    if (field[i] != '\\') {
      out += field[i];
      continue;
    }
    if (++i == field.size()) {
      *error = "a backslash ends the field";
      return std::nullopt;
    }
    switch (field[i]) {
      case '\\': out += '\\'; break;
      case 's': out += ' '; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case '/': out += '/'; break;
      case 'x': {
        int value = 0;
        if (i + 2 >= field.size() || !absl::SimpleHexAtoi(absl::string_view(field.data() + i + 1, 2), &value)) {
          *error = "`\\x` needs two hex digits";
          return std::nullopt;
        }
        out += static_cast<char>(value);
        i += 2;
        break;
      }
      default:
        *error = fmt::format("unknown escape `\\{}`", field[i]);
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace tokvec
