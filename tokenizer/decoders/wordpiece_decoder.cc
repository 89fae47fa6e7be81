#include "tokenizer/decoders/wordpiece_decoder.h"

#include <utility>


namespace tokvec {
namespace {

// Every non-overlapping `from`, left to right, becomes `to` (Rust's str::replace).
std::string ReplaceAll(const std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, pos)) {
    out.append(text, pos, at - pos);
    out += to;
    pos = at + from.size();
  }
  out.append(text, pos, std::string::npos);
  return out;
}

}  // namespace

void WordPieceDecoder::Append(std::string_view token, size_t index, std::string* text) const {
  std::string piece;
  if (index == 0) {
    piece = std::string(token);
  } else if (token.substr(0, prefix.size()) == prefix) {  // An empty prefix joins every token.
    piece = std::string(token.substr(prefix.size()));
  } else {
    piece.reserve(token.size() + 1);
    piece += ' ';
    piece.append(token.data(), token.size());
  }
  if (cleanup) {
    // One pattern at a time, in Hugging Face's order: each replacement sees the result of the ones before.
    static constexpr std::pair<std::string_view, std::string_view> kCleanups[] = {
        {" .", "."},   {" ?", "?"},   {" !", "!"},          {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
    };
    for (const auto& [from, to] : kCleanups) {
      if (piece.find(from) != std::string::npos) piece = ReplaceAll(piece, from, to);
    }
  }
  *text += piece;
}

}  // namespace tokvec
