#include "tokenizer/models/wordlevel/wordlevel_tokenizer_model.h"

#include <optional>

#include "fmt/format.h"
#include "tokenizer/models/vocab_json.h"

namespace tokvec {

absl::Status WordLevelTokenizerModel::Check(size_t /*vocab_size*/, bool has_decoder) const {
  if (has_affixes_) {
    return absl::InvalidArgumentError("word affixes (continuing_subword_prefix, end_of_word_suffix) need a BPE model");
  }
  if (model_.size() == 0) return absl::InvalidArgumentError("WordLevel model has no vocabulary");
  if (!has_decoder) return absl::InvalidArgumentError("WordLevel model has no decoder");
  return absl::OkStatus();
}

absl::Status WordLevelTokenizerModel::EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                                   TokenSink out) const {
  for (const Piece& piece : pieces) {
    if (piece.end <= piece.begin) continue;
    const std::string_view word = text.substr(piece.begin, piece.end - piece.begin);
    const std::optional<TokenId> id = model_.Lookup(word);
    if (!id) {
      return absl::InvalidArgumentError(fmt::format(
          "byte {}: the word '{}' is not in the WordLevel vocabulary, and neither is its unk_token '{}'",
          base + piece.begin, word, model_.unk_token()));
    }
    out.ids->push_back(*id);
    if (out.offsets != nullptr) out.offsets->push_back({base + piece.begin, base + piece.end});
  }
  return absl::OkStatus();
}

std::string WordLevelTokenizerModel::Spelling(TokenId id) const {
  return id < model_.size() ? model_.token(id) : fmt::format("<id {}>", id);
}

ModelSummary WordLevelTokenizerModel::Describe() const {
  ModelSummary summary{.kind = "wordlevel (whole words looked up)"};
  summary.fields += fmt::format("unk_token: {}\n", model_.unk_id() ? fmt::format("{} (id {})", model_.unk_token(),
                                                                                *model_.unk_id())
                                                                  : fmt::format("{} (not in the vocabulary)",
                                                                                model_.unk_token()));
  return summary;
}

absl::StatusOr<std::string> WordLevelTokenizerModel::HfModelJson() const {
  return fmt::format(R"({{"type":"WordLevel","vocab":{},"unk_token":{}}})",
                     VocabJsonObject(model_.size(), [&](TokenId id) -> std::string_view { return model_.token(id); }),
                     JsonString(model_.unk_token()));
}

}  // namespace tokvec
