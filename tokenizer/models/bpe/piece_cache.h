// A per-thread cache of byte-level BPE results: piece bytes -> its tokens. Text repeats its pieces (" the",
// ",", " of" ...), so most pieces of a large input are merged once and then copied.
//
//   PieceCache& cache = PieceCache::ForThread(tokenizer_serial);
//   const uint64_t hash = PieceCache::Hash(bytes);
//   if (const PieceCache::Entry* hit = cache.Find(hash, bytes)) { ... cache.ids(*hit)[0 .. hit->count) ... }
//   ... else merge `symbols` ...
//   cache.Insert(hash, bytes, symbols, piece.begin);
//
// Each thread holds one cache, for the tokenizer it used last (identified by a serial number from
// NewPieceCacheSerial(), never reused, unlike an address); switching tokenizers empties it. Pieces of at most
// kMaxCachedPieceBytes are cached. The table is open addressing with linear probing over 16-byte slots that
// point into one arena holding each piece's bytes, token ids and token begins, so a lookup hashes the piece
// once, touches one slot and one arena line, and copies nothing but the ids. It grows to kMaxCachedPieces
// entries or kMaxArenaBytes and is then emptied, so a thread holds at most ~48 MB (the 14.8 MB of shared
// corpora, 532 languages, have 306,099 distinct gpt2 pieces in 3.7 MB; they fit). The cached tokens are what
// the merge produced for the same bytes, so results are identical with and without the cache
// (tests/tokenizer/models/bpe/piece_cache_test.cc).
// Why: BpeModel::Find/Lookup, memcmp and the merge took about 60% of `tokvec encode --lines` on gpt2 (perf,
// 3 MB of the corpora) before the first cache (absl::flat_hash_map<std::string, std::vector>, 64-byte pieces,
// 65,536 entries), which cut CPU time by 15-25%. This table (255-byte pieces, 524,288 entries, no allocation
// per entry, looked up before the whole-piece vocabulary lookup of tiktoken models): CPU time of `tokvec encode
// --lines -m gpt2.tiktoken` on the 14.8 MB 0.75 -> 0.65 s; on 103.6 MB (the corpora 7 times) 2.5 -> 1.7 s.
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_PIECE_CACHE_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_PIECE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {

inline constexpr size_t kMaxCachedPieceBytes = 255;
inline constexpr size_t kMaxCachedPieces = size_t{1} << 19;
inline constexpr size_t kMaxArenaBytes = size_t{32} << 20;

namespace piece_cache_internal {

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

// A multiply-fold hash of short byte strings: whole 8-byte words, then the tail read as two overlapping
// loads (the idea of wyhash), so no byte past the piece is touched.
inline uint64_t HashBytes(const char* p, size_t n) {
  constexpr uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
  uint64_t h = k0 ^ n;
  while (n > 16) {
    h = Mix(Load64(p) ^ k1, Load64(p + 8) ^ h);
    p += 16;
    n -= 16;
  }
  uint64_t a, b;
  if (n >= 8) {
    a = Load64(p);
    b = Load64(p + n - 8);
  } else if (n >= 4) {
    a = Load32(p);
    b = Load32(p + n - 4);
  } else if (n > 0) {
    a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) | (uint64_t{static_cast<unsigned char>(p[n >> 1])} << 8) |
        static_cast<unsigned char>(p[n - 1]);
    b = 0;
  } else {
    a = b = 0;
  }
  return Mix(a ^ k1, b ^ h ^ k2);
}

// a[0, n) == b[0, n), by overlapping word loads for short strings (no call).
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    return Load64(a) == Load64(b) && Load64(a + n - 8) == Load64(b + n - 8);
  }
  if (n >= 4) return Load32(a) == Load32(b) && Load32(a + n - 4) == Load32(b + n - 4);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace piece_cache_internal

// A fresh serial for a new tokenizer (thread-safe).
uint64_t NewPieceCacheSerial();

class PieceCache {
 public:
  // The cached tokens of one piece: ids()[i] starts at byte begins()[i] of the piece.
  struct Entry {
    uint64_t hash;
    uint32_t offset;  // into the arena: piece bytes, then ids (4-aligned), then begins
    uint16_t piece_size;
    uint16_t count;  // 0: an empty slot
  };

  // An empty cache for the tokenizer with this serial (Tokenizer::NewPieceCache).
  explicit PieceCache(uint64_t serial);
  // The calling thread's cache, emptied first if it last served another tokenizer.
  static PieceCache& ForThread(uint64_t serial);
  // Tests: turn every cache off (Find finds nothing, Insert stores nothing) or back on.
  static void SetEnabledForTesting(bool enabled);

  // The hash that Find and Insert take: computed once per piece, used for every cache it is looked up in.
  static uint64_t Hash(std::string_view bytes) { return piece_cache_internal::HashBytes(bytes.data(), bytes.size()); }

  // The entry of `bytes` (whose Hash is `hash`), or nullptr. Valid until the next Insert.
  const Entry* Find(uint64_t hash, std::string_view bytes) const {
    if (bytes.size() > kMaxCachedPieceBytes || !enabled_) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Entry& entry = slots_[i];
      if (entry.count == 0) return nullptr;
      if (entry.hash == hash && entry.piece_size == bytes.size() &&
          piece_cache_internal::SameBytes(arena_.data() + entry.offset, bytes.data(), bytes.size())) {
        return &entry;
      }
    }
  }
  const TokenId* ids(const Entry& entry) const {
    return reinterpret_cast<const TokenId*>(arena_.data() + IdsOffset(entry));
  }
  const uint8_t* begins(const Entry& entry) const {
    return reinterpret_cast<const uint8_t*>(arena_.data() + IdsOffset(entry) + entry.count * sizeof(TokenId));
  }
  // Remembers the merged symbols of `bytes`; symbol begins are text offsets, `piece_begin` is the piece's.
  void Insert(uint64_t hash, std::string_view bytes, const std::vector<BpeModel::Symbol>& symbols,
              size_t piece_begin);
  // Adds every entry of `other` (a cache of the same tokenizer) that this one lacks: how the caches of several
  // threads share what each merged (tokvec encode folds each worker's cache into a shared one between batches).
  void MergeFrom(const PieceCache& other);
  // Forgets every entry.
  void Clear() { Reset(kInitialSlots); }
  uint64_t serial() const { return serial_; }
  size_t size() const { return used_; }

 private:
  static constexpr size_t kInitialSlots = 4096;
  PieceCache() = default;
  static size_t IdsOffset(const Entry& entry) { return (entry.offset + entry.piece_size + 3) & ~size_t{3}; }
  void Reset(size_t slots);
  // Inserts `count` tokens (ids, begins within the piece) of the piece `bytes` with this hash, if absent.
  void InsertTokens(uint64_t hash, std::string_view bytes, const TokenId* ids, const uint8_t* begins, size_t count);

  uint64_t serial_ = 0;
  bool enabled_ = true;  // SetEnabledForTesting, read when ForThread hands the cache out
  size_t used_ = 0;
  std::vector<Entry> slots_;  // power-of-two size
  std::vector<char> arena_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_PIECE_CACHE_H_
