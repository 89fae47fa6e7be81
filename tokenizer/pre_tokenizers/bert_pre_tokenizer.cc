#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.h"

#include "fmt/format.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/bert_unicode.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

absl::Status BertPreTokenizer::Split(std::string_view text, std::vector<Piece>* pieces) const {
  size_t word_begin = text.size();  // Start of the current word; text.size() between words.
  for (size_t at = 0; at < text.size();) {
    const size_t length = Utf8SequenceLength(text, at);
    if (length == 0) {
      return absl::InvalidArgumentError(
          fmt::format("invalid UTF-8 at byte offset {} (byte 0x{:02X}); WordPiece models need UTF-8 text", at,
                      static_cast<unsigned char>(text[at])));
    }
    size_t decoded_length = 0;
    const char32_t c = DecodeWellFormedUtf8(text, at, &decoded_length);
    const bool white = IsBertWhitespace(c);
    if (white || IsBertPunctuation(c)) {
      if (word_begin < at) pieces->push_back({word_begin, at});
      if (!white) pieces->push_back({at, at + length});
      word_begin = text.size();
    } else if (word_begin == text.size()) {
      word_begin = at;
    }
    at += length;
  }
  if (word_begin < text.size()) pieces->push_back({word_begin, text.size()});
  return absl::OkStatus();
}

size_t BertPreTokenizer::FindCut(std::string_view text, size_t limit) const {
  return WhitespacePreTokenizer().FindCut(text, limit);
}

}  // namespace tokvec
