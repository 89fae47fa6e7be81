#include "tokenizer/models/bpe/char_symbols.h"

#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

std::array<TokenId, 256> FallbackTokenIds(const BpeModel& bpe) {
  std::array<TokenId, 256> ids;
  for (int b = 0; b < 256; ++b) ids[b] = bpe.Find(fmt::format("<0x{:02X}>", b)).value_or(kNoFallbackToken);
  return ids;
}

void CharSymbols(std::string_view text, size_t base, const BpeModel& bpe, const CharBpeOptions& options,
                 const std::array<TokenId, 256>& fallback_ids, std::vector<BpeModel::Symbol>* symbols) {
  std::optional<size_t> pending_unk;  // Where the waiting unk begins.
  // A waiting unk goes after the byte-fallback tokens pushed meanwhile: it begins no earlier than they do, so
  // that offsets stay in order.
  auto flush = [&] {
    size_t begin = base + *pending_unk;
    if (!symbols->empty()) begin = std::max(begin, symbols->back().begin);
    symbols->push_back({*options.unk_id, begin});
    pending_unk.reset();
  };
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = std::max<size_t>(Utf8SequenceLength(text, pos), 1);
    const std::string_view c = text.substr(pos, length);
    if (std::optional<TokenId> id = bpe.Find(c)) {
      if (pending_unk) flush();
      symbols->push_back({*id, base + pos});
    } else {
      bool all_bytes = options.byte_fallback;
      for (size_t k = 0; all_bytes && k < length; ++k) {
        all_bytes = fallback_ids[static_cast<unsigned char>(c[k])] != kNoFallbackToken;
      }
      if (all_bytes) {
        for (size_t k = 0; k < length; ++k) {
          symbols->push_back({fallback_ids[static_cast<unsigned char>(c[k])], base + pos + k});
        }
      } else if (options.unk_id) {
        if (pending_unk && !options.fuse_unk) flush();
        if (!pending_unk) pending_unk = pos;
      }
    }
    pos += length;
  }
  if (pending_unk) flush();
}

}  // namespace tokvec
