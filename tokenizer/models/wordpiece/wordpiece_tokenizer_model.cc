#include "tokenizer/models/wordpiece/wordpiece_tokenizer_model.h"

#include <vector>

#include "fmt/format.h"
#include "tokenizer/models/piece_symbols.h"
#include "tokenizer/models/vocab_json.h"

namespace tokvec {

absl::Status WordPieceTokenizerModel::Check(size_t /*vocab_size*/, bool /*has_decoder*/) const {
  if (has_affixes_) {
    return absl::InvalidArgumentError("word affixes (continuing_subword_prefix, end_of_word_suffix) need a BPE model");
  }
  if (model_.size() == 0) return absl::InvalidArgumentError("WordPiece model has no vocabulary");
  return absl::OkStatus();
}

absl::Status WordPieceTokenizerModel::EncodePieces(std::string_view text, absl::Span<const Piece> pieces, size_t base,
                                                   TokenSink out) const {
  thread_local std::vector<BpeModel::Symbol> scratch;
  EncodeEachPiece(text, pieces, base, out, scratch, [&](std::string_view word, Piece piece, auto* symbols) {
    model_.Tokenize(word, piece.begin, symbols);
  });
  return absl::OkStatus();
}

std::string WordPieceTokenizerModel::Spelling(TokenId id) const {
  return id < model_.size() ? model_.token(id) : fmt::format("<id {}>", id);
}

std::optional<TokenId> WordPieceTokenizerModel::FindSpelling(std::string_view spelling) const {
  return model_.Find(spelling);
}

ModelSummary WordPieceTokenizerModel::Describe() const {
  const WordPieceModel::Options& options = model_.options();
  ModelSummary summary{.kind = "wordpiece (greedy longest match, continuation prefix)"};
  summary.fields += fmt::format("unk_token: {} (id {})\n", options.unk_token, model_.unk_id());
  summary.fields += fmt::format("continuing_subword_prefix: {}\n", options.continuing_subword_prefix);
  summary.fields += fmt::format("max_input_chars_per_word: {}\n", options.max_input_chars_per_word);
  return summary;
}

absl::StatusOr<std::string> WordPieceTokenizerModel::HfModelJson() const {
  const WordPieceModel::Options& options = model_.options();
  return fmt::format(
      R"({{"type":"WordPiece","unk_token":{},"continuing_subword_prefix":{},"max_input_chars_per_word":{},)"
      R"("vocab":{}}})",
      JsonString(options.unk_token), JsonString(options.continuing_subword_prefix), options.max_input_chars_per_word,
      VocabJsonObject(model_.size(), [&](TokenId id) -> std::string_view { return model_.token(id); }));
}

}  // namespace tokvec
