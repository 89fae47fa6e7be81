#include "tokenizer/pre_tokenizers/metaspace_sequence_pre_tokenizer.h"

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {

absl::Status MetaspaceSequencePreTokenizer::Split(std::string_view /*text*/, std::vector<Piece>* /*pieces*/) const {
  return absl::FailedPreconditionError("a pre-tokenizer Sequence with a Metaspace rewrites text: call Rewrite");
}

std::string MetaspaceSequencePreTokenizer::name() const {
  return fmt::format("sequence({}, {}, {})", before_ ? before_->name() : "none", metaspace_.name(),
                     after_ ? after_->name() : "none");
}

absl::Status MetaspaceSequencePreTokenizer::Rewrite(std::string_view text, bool at_start, NormalizedText* out,
                                                    std::vector<Piece>* pieces) const {
  out->text.clear();
  out->source_begin.clear();
  out->source_end.clear();
  std::vector<Piece> cut;
  if (before_ != nullptr) {
    TOKVEC_RETURN_IF_ERROR(before_->Split(text, &cut));
  } else if (!text.empty()) {
    cut.push_back({0, text.size()});
  }
  NormalizedText part;
  std::vector<Piece> part_pieces;
  std::vector<Piece> sub;
  for (const Piece& piece : cut) {
    part_pieces.clear();
    TOKVEC_RETURN_IF_ERROR(metaspace_.Rewrite(text.substr(piece.begin, piece.end - piece.begin),
                                              at_start && piece.begin == 0, &part, &part_pieces));
    const size_t shift = out->text.size();
    out->text += part.text;
    for (size_t i = 0; i < part.text.size(); ++i) {
      out->source_begin.push_back(piece.begin + part.source_begin[i]);
      out->source_end.push_back(piece.begin + part.source_end[i]);
    }
    for (const Piece& rewritten : part_pieces) {
      if (after_ == nullptr) {
        pieces->push_back({shift + rewritten.begin, shift + rewritten.end});
        continue;
      }
      sub.clear();
      TOKVEC_RETURN_IF_ERROR(
          after_->Split(std::string_view(part.text).substr(rewritten.begin, rewritten.end - rewritten.begin), &sub));
      for (const Piece& s : sub) pieces->push_back({shift + rewritten.begin + s.begin, shift + rewritten.begin + s.end});
    }
  }
  return absl::OkStatus();
}

}  // namespace tokvec
