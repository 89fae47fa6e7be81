#include "tokenizer/models/bpe/piece_cache.h"

#include <atomic>
#include <cstring>

namespace tokvec {
namespace {

std::atomic<uint64_t> next_serial{1};
std::atomic<bool> enabled{true};

}  // namespace

uint64_t NewPieceCacheSerial() { return next_serial.fetch_add(1); }

void PieceCache::SetEnabledForTesting(bool on) { enabled.store(on); }

PieceCache::PieceCache(uint64_t serial) : serial_(serial), enabled_(enabled.load(std::memory_order_relaxed)) {
  Reset(kInitialSlots);
}

PieceCache& PieceCache::ForThread(uint64_t serial) {
  thread_local PieceCache cache;
  if (cache.serial_ != serial) {
    cache.Reset(kInitialSlots);
    cache.serial_ = serial;
  }
  cache.enabled_ = enabled.load(std::memory_order_relaxed);
  return cache;
}

void PieceCache::Reset(size_t slots) {
  slots_.assign(slots, Entry{0, 0, 0, 0});
  arena_.clear();
  used_ = 0;
}

void PieceCache::Insert(uint64_t hash, std::string_view bytes, const std::vector<BpeModel::Symbol>& symbols,
                        size_t piece_begin) {
  if (bytes.size() > kMaxCachedPieceBytes || symbols.empty() || symbols.size() > kMaxCachedPieceBytes) return;
  if (!enabled_) return;
  TokenId ids[kMaxCachedPieceBytes];
  uint8_t begins[kMaxCachedPieceBytes];
  for (size_t k = 0; k < symbols.size(); ++k) {
    ids[k] = symbols[k].id;
    begins[k] = static_cast<uint8_t>(symbols[k].begin - piece_begin);
  }
  InsertTokens(hash, bytes, ids, begins, symbols.size());
}

void PieceCache::MergeFrom(const PieceCache& other) {
  if (!enabled_) return;
  for (const Entry& entry : other.slots_) {
    if (entry.count == 0) continue;
    InsertTokens(entry.hash, std::string_view(other.arena_.data() + entry.offset, entry.piece_size),
                 other.ids(entry), other.begins(entry), entry.count);
  }
}

void PieceCache::InsertTokens(uint64_t hash, std::string_view bytes, const TokenId* ids, const uint8_t* begins,
                              size_t count) {
  if (slots_.empty()) Reset(kInitialSlots);
  const size_t entry_bytes = bytes.size() + 3 + count * (sizeof(TokenId) + 1);
  if (arena_.size() + entry_bytes > kMaxArenaBytes || used_ >= kMaxCachedPieces) {
    Reset(slots_.size());
  } else if (2 * (used_ + 1) > slots_.size()) {  // Keep the load at most 1/2: grow and re-insert.
    std::vector<Entry> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Entry{0, 0, 0, 0});
    const size_t mask = slots_.size() - 1;
    for (const Entry& entry : old) {
      if (entry.count == 0) continue;
      size_t i = entry.hash & mask;
      while (slots_[i].count != 0) i = (i + 1) & mask;
      slots_[i] = entry;
    }
  }
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  for (;; i = (i + 1) & mask) {
    const Entry& entry = slots_[i];
    if (entry.count == 0) break;
    if (entry.hash == hash && entry.piece_size == bytes.size() &&
        piece_cache_internal::SameBytes(arena_.data() + entry.offset, bytes.data(), bytes.size())) {
      return;  // Already cached.
    }
  }
  Entry entry{hash, static_cast<uint32_t>(arena_.size()), static_cast<uint16_t>(bytes.size()),
              static_cast<uint16_t>(count)};
  arena_.resize(IdsOffset(entry) + count * (sizeof(TokenId) + 1));
  std::memcpy(arena_.data() + entry.offset, bytes.data(), bytes.size());
  std::memcpy(arena_.data() + IdsOffset(entry), ids, count * sizeof(TokenId));
  std::memcpy(arena_.data() + IdsOffset(entry) + count * sizeof(TokenId), begins, count);
  slots_[i] = entry;
  ++used_;
}

}  // namespace tokvec
