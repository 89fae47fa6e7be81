#include "tokenizer/pre_tokenizers/metaspace_pre_tokenizer.h"

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

absl::Status MetaspacePreTokenizer::Split(std::string_view /*text*/, std::vector<Piece>* /*pieces*/) const {
  return absl::FailedPreconditionError("the Metaspace pre-tokenizer rewrites text: call Rewrite");
}

std::string MetaspacePreTokenizer::name() const {
  const char* prepend = options_.prepend == Prepend::kAlways  ? "always"
                        : options_.prepend == Prepend::kFirst ? "first"
                                                              : "never";
  return fmt::format("{}metaspace({},{},{})", options_.whitespace_split ? "whitespace+" : "", options_.replacement,
                     prepend, options_.split ? "split" : "nosplit");
}

void MetaspacePreTokenizer::RewriteSection(std::string_view text, size_t begin, size_t end, bool prepend,
                                           NormalizedText* out, std::vector<Piece>* pieces) const {
  const std::string& rep = options_.replacement;
  const size_t start = out->text.size();
  auto push = [&](std::string_view bytes, size_t from, size_t to) {
    out->text.append(bytes);
    out->source_begin.insert(out->source_begin.end(), bytes.size(), from);
    out->source_end.insert(out->source_end.end(), bytes.size(), to);
  };
  // After spaces are replaced: does the section start with the replacement?
  const bool starts_with_rep =
      text.substr(begin, end - begin).substr(0, rep.size()) == rep || (begin < end && text[begin] == ' ');
  // Nothing is put before an empty section: Hugging Face's prepend attaches the replacement to the first character,
  // so a text that normalizes to nothing (white space and a right Strip) stays empty.
  if (prepend && begin < end && !starts_with_rep) {
    size_t len = Utf8SequenceLength(text, begin);
    if (len == 0) len = 1;
    push(rep, begin, begin + len);  // Hugging Face aligns it with the character it is put before.
  }
  for (size_t i = begin; i < end; ++i) {
    if (text[i] == ' ') {
      push(rep, i, i + 1);
    } else {
      push(text.substr(i, 1), i, i + 1);
    }
  }
  if (!options_.split) {
    if (out->text.size() > start) pieces->push_back({start, out->text.size()});
    return;
  }
  // Cut before each replacement (it starts the next piece).
  size_t piece_begin = start;
  for (size_t at = out->text.find(rep, start + 1); at != std::string::npos && !rep.empty();
       at = out->text.find(rep, at + rep.size())) {
    if (at > piece_begin) pieces->push_back({piece_begin, at});
    piece_begin = at;
  }
  if (out->text.size() > piece_begin) pieces->push_back({piece_begin, out->text.size()});
}

absl::Status MetaspacePreTokenizer::Rewrite(std::string_view text, bool at_start, NormalizedText* out,
                                            std::vector<Piece>* pieces) const {
  out->text.clear();
  out->source_begin.clear();
  out->source_end.clear();
  out->text.reserve(text.size() + text.size() / 4 + 4);
  auto prepend_at = [&](size_t begin) {
    return options_.prepend == Prepend::kAlways || (options_.prepend == Prepend::kFirst && at_start && begin == 0);
  };
  if (!options_.whitespace_split) {
    RewriteSection(text, 0, text.size(), prepend_at(0), out, pieces);
    return absl::OkStatus();
  }
  std::vector<Piece> words;
  TOKVEC_RETURN_IF_ERROR(WhitespacePreTokenizer().Split(text, &words));
  for (const Piece& word : words) RewriteSection(text, word.begin, word.end, prepend_at(word.begin), out, pieces);
  return absl::OkStatus();
}

}  // namespace tokvec
