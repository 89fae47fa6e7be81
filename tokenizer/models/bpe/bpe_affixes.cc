#include "tokenizer/models/bpe/bpe_affixes.h"

#include <algorithm>
#include <optional>

#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

void AffixSymbols(std::string_view text, size_t base, const BpeModel& bpe, const BpeAffixes& affixes,
                  std::vector<BpeModel::Symbol>* symbols) {
  thread_local std::string affixed;
  std::optional<size_t> pending_unk;  // Where the waiting unk begins.
  auto flush = [&] {
    size_t begin = base + *pending_unk;
    if (!symbols->empty()) begin = std::max(begin, symbols->back().begin);
    symbols->push_back({*affixes.unknown.unk_id, begin});
    pending_unk.reset();
  };
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = affixes.code_points ? std::max<size_t>(Utf8SequenceLength(text, pos), 1) : 1;
    affixed.clear();
    if (pos > 0) affixed += affixes.prefix;
    affixed.append(text, pos, length);
    if (pos + length >= text.size()) affixed += affixes.suffix;
    if (std::optional<TokenId> id = bpe.Find(affixed)) {
      if (pending_unk) flush();
      symbols->push_back({*id, base + pos});
      pos += length;
      continue;
    }
    if (affixes.unknown.byte_fallback) {
      // Hugging Face falls back on the bytes of the spelled string: a byte-level model's spelling is UTF-8 of
      // GPT-2's byte alphabet.
      const std::string spelled = affixes.code_points ? affixed : BytesToUnicode(affixed);
      bool all_bytes = true;
      for (size_t k = 0; all_bytes && k < spelled.size(); ++k) {
        all_bytes = affixes.fallback_ids[static_cast<unsigned char>(spelled[k])] != kNoFallbackToken;
      }
      if (all_bytes) {
        // Each byte token of the unit's own bytes begins at that byte, so that its offsets cover the unit's
        // character as Hugging Face's do; the bytes of an affix begin at the unit's first or last byte and so
        // cover it too (EmitPieceSymbols), where Hugging Face's run on past the word's end.
        const size_t unit_start = pos > 0 && affixes.code_points ? affixes.prefix.size() : 0;
        for (size_t k = 0; k < spelled.size(); ++k) {
          const size_t in_unit = std::min(k > unit_start ? k - unit_start : 0, length - 1);
          symbols->push_back({affixes.fallback_ids[static_cast<unsigned char>(spelled[k])], base + pos + in_unit});
        }
        pos += length;
        continue;
      }
    }
    if (affixes.unknown.unk_id) {
      if (pending_unk && !affixes.unknown.fuse_unk) flush();
      if (!pending_unk) pending_unk = pos;
    }
    pos += length;
  }
  if (pending_unk) flush();
}

}  // namespace tokvec
