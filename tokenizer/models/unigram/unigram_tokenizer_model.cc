#include "tokenizer/models/unigram/unigram_tokenizer_model.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/models/piece_symbols.h"
#include "tokenizer/models/vocab_json.h"

namespace tokvec {

absl::Status UnigramTokenizerModel::Check(size_t /*vocab_size*/, bool has_decoder) const {
  if (has_affixes_) {
    return absl::InvalidArgumentError("word affixes (continuing_subword_prefix, end_of_word_suffix) need a BPE model");
  }
  if (model_.size() == 0) return absl::InvalidArgumentError("Unigram model has no vocabulary");
  if (!has_decoder) return absl::InvalidArgumentError("Unigram model has no decoder");
  return absl::OkStatus();
}

absl::Status UnigramTokenizerModel::EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                                 TokenSink out) const {
  thread_local std::vector<BpeModel::Symbol> symbols;
  for (const Piece& piece : pieces) {
    if (piece.end <= piece.begin) continue;
    symbols.clear();
    TOKVEC_RETURN_IF_ERROR(
        model_.Tokenize(text.substr(piece.begin, piece.end - piece.begin), piece.begin, &symbols));
    EmitPieceSymbols(symbols, piece, base, out);
  }
  return absl::OkStatus();
}

std::string UnigramTokenizerModel::Spelling(TokenId id) const {
  return id < model_.size() ? model_.token(id) : fmt::format("<id {}>", id);
}

std::optional<TokenId> UnigramTokenizerModel::FindSpelling(std::string_view spelling) const {
  return model_.Find(spelling);
}

ModelSummary UnigramTokenizerModel::Describe() const {
  ModelSummary summary{.kind = "unigram (best-scoring segmentation, SentencePiece)"};
  summary.fields += fmt::format("unk_token: {}\n", model_.unk_id() ? fmt::format("{} (id {})", model_.token(*model_.unk_id()),
                                                                                *model_.unk_id())
                                                                  : std::string("none"));
  summary.fields += fmt::format("byte_fallback: {}\n", model_.byte_fallback());
  return summary;
}

absl::StatusOr<std::string> UnigramTokenizerModel::HfModelJson() const {
  // Scores as nlohmann writes doubles: the shortest text that reads back as the same double.
  std::string vocab = "[";
  for (TokenId id = 0; id < model_.size(); ++id) {
    if (id > 0) vocab += ',';
    vocab += '[';
    vocab += JsonString(model_.token(id));
    vocab += ',';
    vocab += nlohmann::json(model_.score(id)).dump();
    vocab += ']';
  }
  vocab += ']';
  return fmt::format(R"({{"type":"Unigram","unk_id":{},"vocab":{},"byte_fallback":{}}})",
                     model_.unk_id() ? std::to_string(*model_.unk_id()) : "null", vocab, model_.byte_fallback());
}

}  // namespace tokvec
