#include "tokenizer/id_text.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <new>

#include <sys/mman.h>

#include "base/status_macros.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

void IdTextBuffer::Grow(size_t n) {
  const size_t capacity = std::max({capacity_ * 2, size_ + n, size_t{4096}});
  std::unique_ptr<char[]> data(new char[capacity]);  // not zero-filled
  if (size_ > 0) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

void LongIdTextTable::Insert(uint64_t hash, std::string_view bytes, std::string_view text) {
  if (bytes.empty() || bytes.size() > kMaxPieceBytes || text.size() > UINT16_MAX) return;
  if (Find(hash, bytes) != nullptr) return;
  if (arena_.size() + bytes.size() + text.size() > kMaxArenaBytes) Clear();
  if (2 * (used_ + 1) > slots_.size()) Rehash(std::max<size_t>(4096, 2 * slots_.size()));
  size_t i = hash & mask_;
  while (slots_[i].piece_size != 0) i = (i + 1) & mask_;
  slots_[i] = {hash, static_cast<uint32_t>(arena_.size()), static_cast<uint16_t>(bytes.size()),
               static_cast<uint16_t>(text.size())};
  arena_.insert(arena_.end(), bytes.begin(), bytes.end());
  arena_.insert(arena_.end(), text.begin(), text.end());
  ++used_;
}

void LongIdTextTable::Rehash(size_t slots) {
  std::vector<Entry> old(slots, Entry{0, 0, 0, 0});
  old.swap(slots_);
  mask_ = slots - 1;
  for (const Entry& entry : old) {
    if (entry.piece_size == 0) continue;
    size_t i = entry.hash & mask_;
    while (slots_[i].piece_size != 0) i = (i + 1) & mask_;
    slots_[i] = entry;
  }
}

void LongIdTextTable::MergeFrom(const LongIdTextTable& other) {
  if (&other == this) return;  // (its entries would be inserted from the arena being appended to)
  for (const Entry& entry : other.slots_) {
    if (entry.piece_size == 0) continue;
    const std::string_view bytes(other.arena_.data() + entry.offset, entry.piece_size);
    Insert(entry.hash, bytes, other.text(entry));
  }
}

void LongIdTextTable::Clear() {
  if (used_ == 0) return;
  std::fill(slots_.begin(), slots_.end(), Entry{0, 0, 0, 0});
  arena_.clear();
  used_ = 0;
}

void IdTextCache::FreeSlots::operator()(Slot* slots) const { std::free(slots); }

// Tables of 2 MiB and more are 2 MiB-aligned and asked to be backed by huge pages: a lookup in a table larger
// than the TLB reaches otherwise misses it as well as the cache.
void IdTextCache::Reset(size_t slots) {
  const size_t bytes = slots * sizeof(Slot);
  constexpr size_t kHugePage = size_t{2} << 20;
  void* memory = bytes >= kHugePage ? std::aligned_alloc(kHugePage, bytes) : std::aligned_alloc(64, bytes);
  if (memory == nullptr) throw std::bad_alloc();
  if (bytes >= kHugePage) madvise(memory, bytes, MADV_HUGEPAGE);
  std::memset(memory, 0, bytes);
  slots_.reset(static_cast<Slot*>(memory));
  slot_count_ = slots;
  mask_ = slots - 1;
  used_ = 0;
}

void IdTextCache::Grow(size_t slots) {
  std::unique_ptr<Slot[], FreeSlots> old = std::move(slots_);
  const size_t old_count = slot_count_;
  Reset(slots);
  for (size_t i = 0; i < old_count; ++i) {
    const Slot& slot = old[i];
    if (slot.size == 0) continue;
    *Probe(Hash(slot.key, slot.size), slot.key, slot.size) = slot;
    ++used_;
  }
}

void IdTextCache::MergeFrom(const IdTextCache& other) {
  // Room for both at once (one new table rather than a doubling after another: each new table is fresh memory,
  // and first touches of fresh memory are what the merges of `tokvec encode` spent most on).
  Reserve(used_ + other.used_);
  for (size_t i = 0; i < other.slot_count_; ++i) {
    const Slot& slot = other.slots_[i];
    if (slot.size == 0) continue;
    const uint64_t hash = Hash(slot.key, slot.size);
    Slot* mine = Probe(hash, slot.key, slot.size);
    if (mine->size == 0) Insert(mine, hash, slot);
  }
  long_.MergeFrom(other.long_);
}

char* WriteSpaceAndId(char* p, TokenId id) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  uint32_t v = id;
  *p++ = ' ';
  const int digits = v < 10        ? 1
                     : v < 100     ? 2
                     : v < 1000    ? 3
                     : v < 10000   ? 4
                     : v < 100000  ? 5
                     : v < 1000000 ? 6
                     : v < 10000000 ? 7
                     : v < 100000000 ? 8
                     : v < 1000000000 ? 9
                                      : 10;
  char* end = p + digits;
  char* d = end;
  while (v >= 100) {
    d -= 2;
    std::memcpy(d, kPairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    std::memcpy(d - 2, kPairs + 2 * v, 2);
  } else {
    d[-1] = static_cast<char>('0' + v);
  }
  return end;
}

absl::Status Tokenizer::EncodeIdText(std::string_view text, const EncodeOptions& options, size_t base,
                                     const IdTextCaches& given, IdTextBuffer* out) const {
  auto mine = [&](const auto* cache) { return cache != nullptr && cache->serial() == cache_serial_; };
  const PieceCache* shared = mine(given.shared_pieces) ? given.shared_pieces : nullptr;
  PieceCache* local = mine(given.local_pieces) ? given.local_pieces : nullptr;
  TOKVEC_ASSIGN_OR_RETURN(std::shared_ptr<const AddedMatchers> matchers, MatchersFor(options));
  if (matchers != nullptr || byte_model_ == nullptr || spec_.normalizer != nullptr ||
      spec_.pre_tokenizer->Rewrites() || !spec_.pre_tokenizer->SplitsIncrementally()) {
    // The general path: the ids of EncodeIds, formatted.
    thread_local std::vector<TokenId> ids;
    ids.clear();
    TOKVEC_RETURN_IF_ERROR(EncodeInto(text, options, base, Caches{shared, local}, Sink{&ids, nullptr}));
    char* p = out->Reserve(11 * ids.size());
    for (TokenId id : ids) p = WriteSpaceAndId(p, id);
    out->Commit(p);
    return absl::OkStatus();
  }
  const IdTextCache* shared_text = mine(given.shared_text) ? given.shared_text : nullptr;
  IdTextCache* hot = mine(given.local_text) ? given.local_text : nullptr;
  if (hot == nullptr) {
    thread_local std::unique_ptr<IdTextCache> own;
    if (own == nullptr || own->serial() != cache_serial_) own = NewIdTextCache();
    hot = own.get();
  }
  thread_local std::vector<BpeModel::Symbol> scratch;
  // Pieces a block at a time, from an L1-sized array (no piece list).
  Piece block[256];
  IdTextCache::Key keys[256];
  uint64_t hashes[256];
  uint32_t in_front[256];  // not bool: stores of a character type may alias anything, and would reload the tables
  SplitCursor cursor;
  while (const size_t n = spec_.pre_tokenizer->SplitSome(text, &cursor, block, std::size(block))) {
    // 1. The keys of the block's short pieces, and whether the front table holds them (no branch on it here:
    // the loads of the whole block overlap).
    for (size_t k = 0; k < n; ++k) {
      const size_t size = block[k].end - block[k].begin;
      in_front[k] = 0;
      if (size > kMaxHotPieceBytes) continue;
      keys[k] = IdTextCache::KeyOf(text, block[k].begin, size);
      hashes[k] = IdTextCache::Hash(keys[k], size);
      in_front[k] = IdTextCache::Holds(hot->Front(hashes[k]), keys[k], size);
    }
    // 2. The main table's lines of the others (the shared one's if any), prefetched: it is larger than L2, and
    // its loads overlap too. The next line as well: a piece found at its home's neighbour is common enough
    // (linear probing at up to 3/4 full) that its wait showed in the profile.
    const IdTextCache* first = shared_text != nullptr ? shared_text : hot;
    for (size_t k = 0; k < n; ++k) {
      if (!in_front[k] && block[k].end - block[k].begin <= kMaxHotPieceBytes) {
        __builtin_prefetch(first->Home(hashes[k]));
        __builtin_prefetch(first->Home(hashes[k]) + 1);  // a prefetch past the end is harmless
      }
    }
    // 3. In order: copy each known piece's text; merge the others (through the piece caches) and remember them.
    // Known pieces are written through `w`, room for the rest of the block reserved at once.
    char* w = out->Reserve(n * IdTextCache::kMaxText);
    for (size_t k = 0; k < n; ++k) {
      const Piece piece = block[k];
      const size_t size = piece.end - piece.begin;
      if (size == 0) continue;
      IdTextCache::Slot* slot = nullptr;
      if (size <= kMaxHotPieceBytes) {
        // Checked again: an earlier piece of the block may have replaced the front slot since step 1.
        const IdTextCache::Slot* found = nullptr;
        if (in_front[k] && IdTextCache::Holds(hot->Front(hashes[k]), keys[k], size)) {
          found = &hot->Front(hashes[k]);
        } else {
          if (shared_text != nullptr) found = shared_text->Find(hashes[k], keys[k], size);
          if (found == nullptr) {
            slot = hot->Probe(hashes[k], keys[k], size);
            if (slot->size != 0) found = slot;
          }
          if (found != nullptr) found = &(hot->Front(hashes[k]) = *found);
        }
        if (found != nullptr) {
          std::memcpy(w, found->text, IdTextCache::kMaxText);
          w += found->text_size;
          continue;
        }
      }
      out->Commit(w);
      // Not in the slots: the long tables (the shared one first), else the merge, whose text is remembered in
      // the slot Probe gave or, when it does not fit one or the piece is long, in this thread's long table.
      const std::string_view bytes = text.substr(piece.begin, size);
      const uint64_t piece_hash = PieceCache::Hash(bytes);
      const LongIdTextTable* owner = shared_text != nullptr ? &shared_text->long_texts() : &hot->long_texts();
      const LongIdTextTable::Entry* hit = owner->Find(piece_hash, bytes);
      if (hit == nullptr && shared_text != nullptr) {
        owner = &hot->long_texts();
        hit = owner->Find(piece_hash, bytes);
      }
      char* start;
      char* p;
      if (hit != nullptr) {
        const std::string_view known = owner->text(*hit);
        start = p = out->Reserve(known.size());
        std::memcpy(p, known.data(), known.size());
        p += known.size();
      } else {
        byte_model_->MergePiece(text, piece, scratch);
        start = p = out->Reserve(11 * scratch.size());
        for (const BpeModel::Symbol& symbol : scratch) p = WriteSpaceAndId(p, symbol.id);
        const std::string_view formatted(start, static_cast<size_t>(p - start));
        if (slot != nullptr && formatted.size() <= IdTextCache::kMaxText) {
          hot->Fill(slot, hashes[k], keys[k], size, formatted);
        } else {
          hot->long_texts().Insert(piece_hash, bytes, formatted);
        }
      }
      out->Commit(p);
      w = out->Reserve((n - k) * IdTextCache::kMaxText);
    }
    out->Commit(w);
  }
  return absl::OkStatus();
}

}  // namespace tokvec
