// Token ids written straight as decimal text: the output of `tokvec encode` (ids, space-separated), made without
// an id vector in between.
//
//   IdTextBuffer out;
//   std::unique_ptr<IdTextCache> texts = tokenizer.NewIdTextCache();
//   TOKVEC_RETURN_IF_ERROR(tokenizer.EncodeIdText("Hello world", {}, 0, {.local_text = texts.get()}, &out));
//   out.view() == " 15496 995"   // every id follows a space
//
// IdTextCache maps short pieces (at most kMaxHotPieceBytes) to their ids' text, in 64-byte slots holding the
// piece (two words and its size) and the text, so a lookup reads one cache line and copies 46 bytes. Two
// tables: a direct-mapped front of recently used slots that fits L2, then the main open-addressing table that
// grows to hold every short piece seen. Tokenizer::EncodeIdText looks a block of pieces up at once, prefetching
// the main table's lines of those the front lacks, so their loads overlap. Longer pieces, and those whose text
// passes a slot's, are kept in a third table (LongIdTextTable). Misses go through the merge
// (ByteBpeTokenizerModel::MergePiece); the text is what formatting their ids gives, so results are those of EncodeIds
// (tests/tokenizer/id_text_test.cc).
// Why: `tokvec encode -m gpt2.tiktoken` (1 thread, 100 MB of the shared corpora) spent ~35% in piece-cache
// probes (an 8 MB table and an arena: two dependent cache misses per piece) and in copying ids, and ~8%
// formatting them. In-process encoding of those 100 MB with warm caches: 0.73 s with the front table, 0.78 s
// without it; a direct-mapped table alone (1 MiB: 14% of short pieces missed; 16 MiB: 7%) left 1.1-1.2 s for
// the whole command, as every miss went back to the piece cache.
#ifndef TOKVEC_TOKENIZER_ID_TEXT_H_
#define TOKVEC_TOKENIZER_ID_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/bpe/piece_cache.h"

namespace tokvec {

// A growable byte buffer written through pointers, without the zero fill of std::string::resize.
class IdTextBuffer {
 public:
  // A pointer to at least `n` writable bytes at the end; Commit says how many were written.
  char* Reserve(size_t n) {
    if (capacity_ - size_ < n) Grow(n);
    return data_.get() + size_;
  }
  void Commit(char* end) { size_ = static_cast<size_t>(end - data_.get()); }
  std::string_view view() const { return {data_.get(), size_}; }
  size_t size() const { return size_; }
  void Clear() { size_ = 0; }

 private:
  void Grow(size_t n);
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Writes " <id>" at p (room for 11 bytes needed) and returns the end.
char* WriteSpaceAndId(char* p, TokenId id);

inline constexpr size_t kMaxHotPieceBytes = 16;

// Pieces that IdTextCache's slots cannot hold (longer than kMaxHotPieceBytes, or whose text passes a slot's 46
// bytes) -> the text of their ids: open addressing over 16-byte entries, each piece's bytes and text side by side
// in an arena. Why: on the 100 MB bench input (gpt2) those pieces are 1.7% of the pieces but 10% of the bytes (CJK
// runs, long words); looked up in the piece cache and formatted id by id at every occurrence, they took ~15% of a
// warm pass.
class LongIdTextTable {
 public:
  static constexpr size_t kMaxPieceBytes = 1024;         // longer pieces are merged at every occurrence
  static constexpr size_t kMaxArenaBytes = size_t{64} << 20;  // emptied when full
  struct Entry {
    uint64_t hash;        // PieceCache::Hash of the piece
    uint32_t offset;      // of the piece's bytes in the arena; its text follows them
    uint16_t piece_size;  // 0: an empty slot
    uint16_t text_size;
  };

  // The entry of `bytes` (whose PieceCache::Hash is `hash`), or null. Valid until the next Insert or Clear.
  const Entry* Find(uint64_t hash, std::string_view bytes) const {
    if (used_ == 0) return nullptr;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Entry& entry = slots_[i];
      if (entry.piece_size == 0) return nullptr;
      if (entry.hash == hash && entry.piece_size == bytes.size() &&
          std::memcmp(arena_.data() + entry.offset, bytes.data(), bytes.size()) == 0) {
        return &entry;
      }
    }
  }
  std::string_view text(const Entry& entry) const {
    return {arena_.data() + entry.offset + entry.piece_size, entry.text_size};
  }
  // Remembers the text of a piece (nothing for a piece or text too long to keep, or one already there).
  void Insert(uint64_t hash, std::string_view bytes, std::string_view text);
  // Adds the entries of `other` that this table lacks.
  void MergeFrom(const LongIdTextTable& other);
  // Forgets every entry, keeping the memory.
  void Clear();
  size_t size() const { return used_; }

 private:
  void Rehash(size_t slots);

  std::vector<Entry> slots_;  // power-of-two size once used
  size_t mask_ = 0;
  size_t used_ = 0;
  std::vector<char> arena_;
};

// Short pieces -> the text of their ids: open addressing, linear probing over 64-byte slots that hold the piece
// (two words and its size) and the text inline, so a lookup reads one line. It doubles at three quarters full
// (at half full, 2 threads held 215 MB instead of 159 on the 100 MB bench, at the same speed), from
// kInitialSlots up to kMaxSlots (64 MiB), and is emptied when that is full.
class IdTextCache {
 public:
  // A piece of at most 16 bytes as two little-endian words, zero past its end.
  struct Key {
    uint64_t lo;
    uint64_t hi;
  };
  struct alignas(64) Slot {
    Key key;
    uint8_t size;       // of the piece; 0: empty
    uint8_t text_size;  // of text
    char text[46];      // " id id ..." of the piece's tokens
  };
  static_assert(sizeof(Slot) == 64);
  static constexpr size_t kMaxText = sizeof(Slot::text);
  static constexpr size_t kInitialSlots = size_t{1} << 14;
  static constexpr size_t kMaxSlots = size_t{1} << 20;

  explicit IdTextCache(uint64_t serial) : serial_(serial) { Reset(kInitialSlots); }
  uint64_t serial() const { return serial_; }
  size_t size() const { return used_; }

  // The key of text[begin, begin + size), size in [1, 16], reading whole words when they lie inside `text`.
  static Key KeyOf(std::string_view text, size_t begin, size_t size) {
    Key key{0, 0};
    const char* p = text.data() + begin;
    if (begin + 16 <= text.size()) {
      // Masks by size rather than branches on it: piece sizes follow no pattern the branch predictor can learn.
      std::memcpy(&key.lo, p, 8);
      std::memcpy(&key.hi, p + 8, 8);
      key.lo &= kKeyMasks.lo[size];
      key.hi &= kKeyMasks.hi[size];
    } else {
      char bytes[16] = {};
      std::memcpy(bytes, p, size);
      std::memcpy(&key.lo, bytes, 8);
      std::memcpy(&key.hi, bytes + 8, 8);
    }
    return key;
  }
  // kKeyMasks.lo[n], .hi[n]: the bits of the first n bytes in each word of a key.
  struct KeyMasks {
    uint64_t lo[kMaxHotPieceBytes + 1];
    uint64_t hi[kMaxHotPieceBytes + 1];
  };
  static constexpr KeyMasks kKeyMasks = [] {
    KeyMasks masks{};
    for (size_t n = 0; n <= kMaxHotPieceBytes; ++n) {
      masks.lo[n] = n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
      masks.hi[n] = n <= 8 ? 0 : n >= 16 ? ~uint64_t{0} : (uint64_t{1} << (8 * (n - 8))) - 1;
    }
    return masks;
  }();
  static uint64_t Hash(Key key, size_t size) {
    const uint64_t h = (key.lo ^ (key.hi * 0x9E3779B97F4A7C15ull) ^ size) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
  }
  // The front table: a direct-mapped copy of recently used slots, small enough for L2 (kFrontSlots x 64 B).
  Slot& Front(uint64_t hash) { return front_[hash >> (64 - kFrontBits)]; }
  // One comparison of all three (no branch between them, so checks of many pieces overlap).
  static bool Holds(const Slot& slot, Key key, size_t size) {
    return ((slot.key.lo ^ key.lo) | (slot.key.hi ^ key.hi) | (slot.size ^ size)) == 0;
  }
  // The first slot `hash` probes, to prefetch.
  const Slot* Home(uint64_t hash) const { return &slots_[hash & mask_]; }
  // The slot holding the piece, or the empty slot where it would go.
  Slot* Probe(uint64_t hash, Key key, size_t size) {
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.size == 0 || (slot.size == size && slot.key.lo == key.lo && slot.key.hi == key.hi)) return &slot;
    }
  }
  // The slot holding the piece, or null (for a table only read: the shared one of several threads).
  const Slot* Find(uint64_t hash, Key key, size_t size) const {
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.size == 0) return nullptr;
      if (Holds(slot, key, size)) return &slot;
    }
  }
  // Stores the text of a piece in the empty slot Probe gave (dropped when longer than a slot holds), and in the
  // front table. The main table may grow: slots found before are no longer valid.
  void Fill(Slot* slot, uint64_t hash, Key key, size_t size, std::string_view text) {
    if (text.size() > kMaxText) return;
    Slot filled{};
    filled.key = key;
    filled.size = static_cast<uint8_t>(size);
    filled.text_size = static_cast<uint8_t>(text.size());
    std::memcpy(filled.text, text.data(), text.size());
    Front(hash) = filled;
    Insert(slot, hash, filled);
  }
  // The texts of the pieces the slots cannot hold.
  const LongIdTextTable& long_texts() const { return long_; }
  LongIdTextTable& long_texts() { return long_; }
  // Adds the entries of `other` (a cache of the same tokenizer) that this one lacks, main and long tables: how
  // the caches of several threads share what each learned (tokvec encode folds each worker's into a shared one
  // between batches, as with PieceCache).
  void MergeFrom(const IdTextCache& other);
  // Makes the main table large enough for `pieces` entries without growing (up to kMaxSlots): for callers that
  // know about how many distinct pieces come (tokvec encode, from the input's size). Growing from kInitialSlots
  // touches about twice the memory in the end (each doubling is a new table) and moves every entry each time.
  void Reserve(size_t pieces) {
    size_t slots = slot_count_;
    while (slots < kMaxSlots && 4 * pieces > 3 * slots) slots *= 2;
    if (slots > slot_count_) Grow(slots);
  }
  // Empties the main and long tables, keeping their memory (new pages cost a fault each: freeing and growing the
  // tables of two workers every batch took ~0.1 s of system time per 100 MB); the front table is kept.
  void ClearMain() {
    long_.Clear();
    if (used_ == 0) return;
    std::memset(static_cast<void*>(slots_.get()), 0, slot_count_ * sizeof(Slot));
    used_ = 0;
  }

 private:
  // Puts `filled` into `slot` (Probe's empty slot for it), growing or emptying the table first when 3/4 full.
  void Insert(Slot* slot, uint64_t hash, const Slot& filled) {
    if (4 * (used_ + 1) > 3 * slot_count_) {
      if (slot_count_ >= kMaxSlots) {
        Reset(slot_count_);
      } else {
        Grow(slot_count_ * 2);
      }
      slot = Probe(hash, filled.key, filled.size);
    }
    *slot = filled;
    ++used_;
  }

  void Reset(size_t slots);
  // Moves the entries into a new main table of `slots` slots.
  void Grow(size_t slots);

  static constexpr int kFrontBits = 12;
  uint64_t serial_;
  std::unique_ptr<Slot[]> front_{new Slot[size_t{1} << kFrontBits]()};
  size_t used_ = 0;
  size_t mask_ = 0;
  struct FreeSlots {
    void operator()(Slot* slots) const;
  };
  std::unique_ptr<Slot[], FreeSlots> slots_;  // power-of-two size
  size_t slot_count_ = 0;
  LongIdTextTable long_;
};

// The caches of one Tokenizer::EncodeIdText call. Pieces are looked up in the shared ones (only read, so
// threads may pass the same ones while none changes them), then in the local ones (this thread's), which learn
// what is merged; null local ones: the thread's own. Caches made for another tokenizer are not used.
struct IdTextCaches {
  const PieceCache* shared_pieces = nullptr;
  PieceCache* local_pieces = nullptr;
  const IdTextCache* shared_text = nullptr;
  IdTextCache* local_text = nullptr;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_ID_TEXT_H_
