// The lines of an input text as `embed --lines` and `search` read them: split at '\n', a '\r' before it dropped,
// no line after a final newline.
#ifndef TOKVEC_CLI_TEXT_LINES_H_
#define TOKVEC_CLI_TEXT_LINES_H_

#include <string_view>
#include <vector>

namespace tokvec::cli {

inline void AppendLines(std::string_view text, std::vector<std::string_view>* lines) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines->push_back(line);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
}

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_TEXT_LINES_H_
