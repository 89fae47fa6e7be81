// A per-thread cache of byte-level BPE results: piece bytes -> its tokens. Text repeats its pieces (" the",
// ",", " of" ...), so most pieces of a large input are merged once and then copied.
//
//   PieceCache& cache = PieceCache::ForThread(tokenizer_serial);
//   if (cache.Emit(bytes, piece, base, out)) return;      // cached: ids and offsets appended
//   ... merge `symbols` ...
//   cache.Insert(bytes, symbols, piece.begin);
//
// Each thread holds one cache, for the tokenizer it used last (identified by a serial number from
// NewPieceCacheSerial(), never reused, unlike an address); switching tokenizers empties it. Only pieces of at
// most kMaxCachedPieceBytes are cached, and the cache is emptied when it reaches kMaxCachedPieces entries, so
// a thread holds a few MB at most. The cached tokens are what the merge produced for the same bytes, so results
// are identical with and without the cache (tests/tokenizer/piece_cache_test.cc).
// Why: BpeModel::Find/Lookup, memcmp and the merge took about 60% of `tokvec encode --lines` on gpt2 (perf,
// 3 MB of the corpora). CPU time of `tokvec encode --lines` without / with the cache: 6.6 MB of English corpora
// 0.24–0.30 s / 0.21–0.24 s (gpt2), 0.30–0.35 s / 0.24–0.27 s (cl100k); 10 MB of all corpora (gpt2)
// 0.82–0.84 s / 0.67–0.70 s. What remains is dominated by long pieces (CJK runs over 64 bytes, not cached,
// merged by BpeModel::MergeReference's repeated pair lookups), the splitter and output formatting.
#ifndef TOKVEC_TOKENIZER_PIECE_CACHE_H_
#define TOKVEC_TOKENIZER_PIECE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/pre_tokenizer.h"

namespace tokvec {

struct Encoding;

inline constexpr size_t kMaxCachedPieceBytes = 64;
inline constexpr size_t kMaxCachedPieces = 1 << 16;

// A fresh serial for a new tokenizer (thread-safe).
uint64_t NewPieceCacheSerial();

class PieceCache {
 public:
  // The calling thread's cache, emptied first if it last served another tokenizer.
  static PieceCache& ForThread(uint64_t serial);
  // Tests: turn every cache off (Emit finds nothing, Insert stores nothing) or back on.
  static void SetEnabledForTesting(bool enabled);

  // Appends the cached tokens of `bytes` (= text[piece.begin, piece.end)) to out, offsets shifted by `base`;
  // false when not cached.
  bool Emit(std::string_view bytes, Piece piece, size_t base, Encoding* out) const;
  // Remembers the merged symbols of `bytes`; symbol begins are text offsets, `piece_begin` is the piece's.
  void Insert(std::string_view bytes, const std::vector<BpeModel::Symbol>& symbols, size_t piece_begin);

 private:
  struct Token {
    TokenId id;
    uint32_t begin;  // byte offset within the piece
  };
  uint64_t serial_ = 0;
  absl::flat_hash_map<std::string, std::vector<Token>> tokens_;  // piece bytes -> its tokens
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PIECE_CACHE_H_
