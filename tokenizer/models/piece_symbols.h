// The per-piece loop shared by the models that cut each pre-tokenizer piece on its own (word and code-point BPE,
// WordPiece; models/tokenizer_model.h): a piece's symbols become ids with byte offsets.
#ifndef TOKVEC_TOKENIZER_MODELS_PIECE_SYMBOLS_H_
#define TOKVEC_TOKENIZER_MODELS_PIECE_SYMBOLS_H_

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/tokenizer_model.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

// Appends one piece's symbols (they begin within text[piece], in order) as ids and offsets counted from `base`.
// A symbol covers up to the next symbol that begins after it, the last ones up to the piece's end: byte tokens
// that share a start (byte fallback of one character or affixed unit) each cover the whole stretch, as Hugging
// Face's offsets do.
inline void EmitPieceSymbols(const std::vector<BpeModel::Symbol>& symbols, Piece piece, size_t base, TokenSink out) {
  size_t next = 0;  // The first symbol that begins after symbols[i].
  for (size_t i = 0; i < symbols.size(); ++i) {
    out.ids->push_back(symbols[i].id);
    if (out.offsets != nullptr) {
      next = std::max(next, i + 1);
      while (next < symbols.size() && symbols[next].begin == symbols[i].begin) ++next;
      const size_t end = next < symbols.size() ? symbols[next].begin : piece.end;
      out.offsets->push_back({base + symbols[i].begin, base + end});
    }
  }
}

// The per-piece loop of models that cut each piece on its own: `symbols_of(bytes, piece, &symbols)` fills the
// symbols of each non-empty piece (`symbols` cleared before), which are then emitted (EmitPieceSymbols).
template <typename SymbolsOf>
void EncodeEachPiece(std::string_view text, absl::Span<const Piece> pieces, size_t base, TokenSink out,
                     std::vector<BpeModel::Symbol>& symbols, SymbolsOf symbols_of) {
  for (const Piece& piece : pieces) {
    const std::string_view bytes = text.substr(piece.begin, piece.end - piece.begin);
    if (bytes.empty()) continue;
    symbols.clear();
    symbols_of(bytes, piece, &symbols);
    EmitPieceSymbols(symbols, piece, base, out);
  }
}

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_PIECE_SYMBOLS_H_
