#include "tokenizer/models/bpe/bpe_model.h"

#include <algorithm>
#include <limits>
#include <cstring>
#include <atomic>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tokvec {
namespace {

// Pieces up to this many symbols merge over an array of pair priorities (MergeShort): after each merge only the
// two pairs beside it are looked up again, and the next merge is found by a scan of the array, which costs
// less than heap upkeep for short pieces. Longer ones use the heap so that 1 MB without a split point stays
// O(n log n). Why: the full rescan that MergeReference does (every pair looked up after every merge) took 35% of
// `tokvec encode --lines -m gpt2.tiktoken` on the 14.8 MB of shared corpora in BpeModel::Find alone (perf,
// idle machine; CJK runs of 30-60 characters are pieces of 90-180 bytes); see MergeShort for the figures.
constexpr size_t kShortLimit = 256;

std::atomic<uint64_t> next_serial{1};

// The per-thread pair cache of CachedLookup: 65,536 direct-mapped slots (1 MB), for the model it served last.
struct PairCache {
  struct Slot {
    uint64_t key = ~uint64_t{0};
    BpeModel::MergeResult result;
  };
  uint64_t serial = 0;
  std::vector<Slot> slots;
};
constexpr int kPairCacheBits = 16;

// MergeShort keeps shifting its arrays up to this many symbols; longer pieces take MergeShortLinked.
constexpr size_t kShiftLimit = 24;

// The index of the first smallest of p[0, count) (count a multiple of 8, p 32-byte aligned).
size_t ArgMinPortable(const uint32_t* p, size_t count) {
  size_t best = 0;
  for (size_t i = 1; i < count; ++i) {
    if (p[i] < p[best]) best = i;
  }
  return best;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t ArgMinAvx2(const uint32_t* p, size_t count) {
  __m256i low = _mm256_set1_epi32(-1);
  for (size_t i = 0; i < count; i += 8) {
    low = _mm256_min_epu32(low, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)));
  }
  low = _mm256_min_epu32(low, _mm256_permute2x128_si256(low, low, 1));
  low = _mm256_min_epu32(low, _mm256_shuffle_epi32(low, 0x4E));
  low = _mm256_min_epu32(low, _mm256_shuffle_epi32(low, 0xB1));  // every lane holds the minimum
  for (size_t i = 0;; i += 8) {
    const __m256i equal = _mm256_cmpeq_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)), low);
    const auto mask = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(equal)));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
  }
}
#endif

size_t ArgMin(const uint32_t* p, size_t count) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return ArgMinAvx2(p, count);
#endif
  return ArgMinPortable(p, count);
}

// Building the bytes -> id table of a large vocabulary waits on memory at every insert: the slot of the token
// this far ahead is requested early.
constexpr size_t kPrefetchAhead = 8;

}  // namespace

BpeModel::BpeModel(Rule rule, std::vector<std::string> tokens)
    : serial_(next_serial.fetch_add(1)), rule_(rule), tokens_(std::move(tokens)) {}

absl::StatusOr<BpeModel> BpeModel::FromRanks(std::vector<std::string> tokens) {
  if (tokens.size() >= std::numeric_limits<TokenId>::max()) {
    return absl::InvalidArgumentError("too many tokens");
  }
  BpeModel model(Rule::kRanks, std::move(tokens));
  model.ids_.reserve(model.tokens_.size());
  for (TokenId id = 0; id < model.tokens_.size(); ++id) {
    if (id + kPrefetchAhead < model.tokens_.size()) model.ids_.prefetch(model.tokens_[id + kPrefetchAhead]);
    const std::string& bytes = model.tokens_[id];
    if (bytes.empty()) continue;
    auto [it, inserted] = model.ids_.emplace(bytes, id);
    if (!inserted) {
      return absl::InvalidArgumentError(
          fmt::format("token {} has the same bytes as token {}; every token must be distinct", id, it->second));
    }
  }
  model.BuildBytePairs();
  return model;
}

// Why: first-time merges start with every pair of adjacent bytes (a CJK run of 60 characters: 179 of them), and
// through the pair cache each cost a hash, a thread-local lookup and a key comparison; on the 100 MB bench input
// half of gpt2's 6.0 million pair lookups were of two single bytes.
void BpeModel::BuildBytePairs() {
  byte_pairs_.clear();
  if (rule_ != Rule::kRanks || tokens_.size() < 256) return;
  TokenId id_of_byte[256];
  for (TokenId id = 0; id < 256; ++id) {
    if (tokens_[id].size() != 1) return;  // ids 0-255 are not the 256 single bytes
    id_of_byte[static_cast<unsigned char>(tokens_[id][0])] = id;
  }
  // (ids are distinct tokens, so ids 0-255 hold every byte once and no other id is a single byte)
  byte_pairs_.assign(size_t{1} << 16, kNoMerge);
  for (TokenId id = 256; id < tokens_.size(); ++id) {
    const std::string& bytes = tokens_[id];
    if (bytes.size() != 2) continue;
    const TokenId left = id_of_byte[static_cast<unsigned char>(bytes[0])];
    const TokenId right = id_of_byte[static_cast<unsigned char>(bytes[1])];
    byte_pairs_[(left << 8) | right] = id;
  }
}

absl::StatusOr<BpeModel> BpeModel::FromMerges(std::vector<std::string> tokens, std::vector<MergePair> merges) {
  absl::StatusOr<BpeModel> base = FromRanks(std::move(tokens));
  if (!base.ok()) return base.status();
  return WithMerges(std::move(base).value(), std::move(merges));
}

absl::StatusOr<BpeModel> BpeModel::WithMerges(BpeModel ranks, std::vector<MergePair> merges, size_t* bad_merge,
                                             size_t right_skip) {
  BpeModel model = std::move(ranks);
  model.rule_ = Rule::kMergeList;
  model.byte_pairs_.clear();  // (ranks only)
  model.merge_lookup_.clear();
  model.merge_lookup_.reserve(merges.size());
  // In blocks, so that the lookups of a block wait for memory together (FindMany).
  constexpr size_t kBlock = 16;
  std::string joined[kBlock];  // Reused: no allocation per merge.
  std::string_view keys[kBlock];
  std::optional<TokenId> results[kBlock];
  for (size_t block = 0; block < merges.size(); block += kBlock) {
    const size_t count = std::min(kBlock, merges.size() - block);
    for (size_t k = 0; k < count; ++k) {
      const MergePair& pair = merges[block + k];
      if (pair.left >= model.tokens_.size() || pair.right >= model.tokens_.size() ||
          model.tokens_[pair.left].empty() || model.tokens_[pair.right].size() <= right_skip) {
        if (bad_merge != nullptr) *bad_merge = block + k;
        return absl::InvalidArgumentError(
            fmt::format("merge {} names a token id that is not in the vocabulary", block + k));
      }
      joined[k].assign(model.tokens_[pair.left]);
      joined[k].append(model.tokens_[pair.right], right_skip);
      keys[k] = joined[k];
      model.merge_lookup_.prefetch(PairKey(pair.left, pair.right));
    }
    model.FindMany(keys, count, results);
    for (size_t k = 0; k < count; ++k) {
      const MergePair& pair = merges[block + k];
      if (!results[k]) {
        if (bad_merge != nullptr) *bad_merge = block + k;
        return absl::InvalidArgumentError(
            fmt::format("merge {} makes a token that is not in the vocabulary (ids {} and {})", block + k, pair.left,
                        pair.right));
      }
      // A pair listed twice keeps its first (lowest) rank, as Hugging Face does.
      model.merge_lookup_.emplace(PairKey(pair.left, pair.right),
                                  MergeResult{static_cast<uint32_t>(block + k), *results[k]});
    }
  }
  model.merges_ = std::move(merges);
  return model;
}

void BpeModel::FindMany(const std::string_view* bytes, size_t count, std::optional<TokenId>* ids) const {
  for (size_t i = 0; i < count; ++i) ids_.prefetch(absl::string_view(bytes[i].data(), bytes[i].size()));
  for (size_t i = 0; i < count; ++i) ids[i] = Find(bytes[i]);
}

std::optional<TokenId> BpeModel::Find(std::string_view bytes) const {
  auto it = ids_.find(absl::string_view(bytes.data(), bytes.size()));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::optional<BpeModel::MergeResult> BpeModel::Lookup(TokenId left, TokenId right) const {
  if (rule_ == Rule::kMergeList) {
    auto it = merge_lookup_.find(PairKey(left, right));
    if (it == merge_lookup_.end()) return std::nullopt;
    return it->second;
  }
  const std::string& a = tokens_[left];
  const std::string& b = tokens_[right];
  char buffer[256];
  std::string heap;
  std::string_view joined;
  if (a.size() + b.size() <= sizeof(buffer)) {
    std::memcpy(buffer, a.data(), a.size());
    std::memcpy(buffer + a.size(), b.data(), b.size());
    joined = std::string_view(buffer, a.size() + b.size());
  } else {
    heap = a + b;
    joined = heap;
  }
  std::optional<TokenId> id = Find(joined);
  if (!id) return std::nullopt;
  return MergeResult{*id, *id};
}

// Why: after MergeShort, BpeModel::Find (the kRanks lookup: join the two tokens' bytes, hash, probe) was still
// 25% of `tokvec encode --lines -m gpt2.tiktoken` on the 14.8 MB of shared corpora (perf, idle machine).
BpeModel::MergeResult BpeModel::CachedLookup(TokenId left, TokenId right) const {
  if ((left | right) < 256 && !byte_pairs_.empty()) {
    const uint32_t id = byte_pairs_[(left << 8) | right];
    return {id, id == kNoMerge ? 0 : id};
  }
  thread_local PairCache cache;
  if (cache.serial != serial_) {
    cache.slots.assign(size_t{1} << kPairCacheBits, PairCache::Slot{});
    cache.serial = serial_;
  }
  const uint64_t key = PairKey(left, right);
  PairCache::Slot& slot = cache.slots[(key * 0x9E3779B97F4A7C15ull) >> (64 - kPairCacheBits)];
  if (slot.key != key) {
    std::optional<MergeResult> result = Lookup(left, right);
    slot.key = key;
    slot.result = result ? *result : MergeResult{kNoMerge, 0};
  }
  return slot.result;
}

void BpeModel::MergeReference(std::vector<Symbol>& symbols) const {
  while (symbols.size() > 1) {
    size_t best = 0;
    std::optional<MergeResult> best_result;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      std::optional<MergeResult> result = Lookup(symbols[i].id, symbols[i + 1].id);
      if (result && (!best_result || result->priority < best_result->priority)) {
        best = i;
        best_result = result;
      }
    }
    if (!best_result) return;
    symbols[best].id = best_result->id;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

void BpeModel::Merge(std::vector<Symbol>& symbols) const {
  if (symbols.size() <= kShortLimit) {
    MergeShort(symbols);
  } else {
    MergeWithHeap(symbols);
  }
}

// pairs[i] holds the priority and result of merging symbols[i] with symbols[i + 1] (kNoMerge: they do not
// merge). Each step merges the leftmost lowest pair, drops symbol i + 1 and pair i + 1 by shifting the short
// tails left, and looks up only pairs i - 1 and i again: n - 1 + 2·(merges) lookups instead of the O(n²) of
// MergeReference. CPU time of `tokvec encode --lines -m gpt2.tiktoken` on the 14.8 MB of shared corpora (idle):
// 1.03 s with MergeReference up to 48 symbols, 0.75 s with this.
void BpeModel::MergeShort(std::vector<Symbol>& symbols) const {
  size_t n = symbols.size();
  if (n < 2) return;
  if (n > kShiftLimit) return MergeShortLinked(symbols);
  MergeResult pairs[kShortLimit];
  auto lookup = [&](size_t i) { return CachedLookup(symbols[i].id, symbols[i + 1].id); };
  for (size_t i = 0; i + 1 < n; ++i) pairs[i] = lookup(i);
  while (n > 1) {
    size_t best = 0;
    uint32_t best_priority = pairs[0].priority;
    for (size_t i = 1; i + 1 < n; ++i) {
      if (pairs[i].priority < best_priority) {
        best_priority = pairs[i].priority;
        best = i;
      }
    }
    if (best_priority == kNoMerge) break;
    symbols[best].id = pairs[best].id;
    // Drop symbol best + 1 and pair best + 1 (pair best is recomputed below).
    for (size_t i = best + 1; i + 1 < n; ++i) symbols[i] = symbols[i + 1];
    for (size_t i = best + 1; i + 2 < n; ++i) pairs[i] = pairs[i + 1];
    --n;
    if (best + 1 < n) pairs[best] = lookup(best);
    if (best > 0) pairs[best - 1] = lookup(best - 1);
  }
  symbols.resize(n);
}

// MergeShort for 25..256 symbols (CJK runs, long words of other scripts: on the shared corpora, most of the
// first-time merge time): the same merges in the same order, without moving anything. Pair i stays at index i
// (the pair of symbol i and the next live one), a merged-away symbol's pair gets priority kNoMerge, live symbols
// are linked, and the next merge is the first smallest priority of the whole array, found 8 at a time (AVX2).
// Shifting both arrays left after every merge and scanning them one by one took 2-3x as long for these pieces.
void BpeModel::MergeShortLinked(std::vector<Symbol>& symbols) const {
  const size_t n = symbols.size();
  alignas(32) uint32_t priority[kShortLimit + 8];
  TokenId merged[kShortLimit];
  uint16_t next[kShortLimit], prev[kShortLimit];
  auto set_pair = [&](size_t i) {  // the pair of live symbol i and the one after it
    if (next[i] >= n) {
      priority[i] = kNoMerge;
      return;
    }
    const MergeResult result = CachedLookup(symbols[i].id, symbols[next[i]].id);
    priority[i] = result.priority;
    merged[i] = result.id;
  };
  for (size_t i = 0; i < n; ++i) {
    next[i] = static_cast<uint16_t>(i + 1);
    prev[i] = static_cast<uint16_t>(i - 1);  // (wraps for 0; never read)
  }
  const size_t count = (n + 7) / 8 * 8;
  for (size_t i = 0; i < n; ++i) set_pair(i);
  for (size_t i = n; i < count; ++i) priority[i] = kNoMerge;
  while (true) {
    const size_t best = ArgMin(priority, count);
    if (priority[best] == kNoMerge) break;
    const size_t gone = next[best];
    symbols[best].id = merged[best];
    priority[gone] = kNoMerge;
    next[best] = next[gone];
    if (next[gone] < n) prev[next[gone]] = static_cast<uint16_t>(best);
    set_pair(best);
    // The pair ending at `best`, of the live symbol before it (symbol 0 is never merged away and has none).
    if (best > 0) set_pair(prev[best]);
  }
  size_t out = 0;
  for (size_t i = 0; i < n; i = next[i]) symbols[out++] = symbols[i];
  symbols.resize(out);
}

// Long pieces: candidate pairs wait in one bucket per priority, and a min-heap orders the priorities that have
// waiting pairs. Within a bucket, pairs leave in left-position order ("leftmost on a tie"): positions are
// original indices, pushed in increasing order by the first scan and almost always by the merges that follow
// (they sweep left to right), so a bucket is a plain queue and turns into a heap only when a push breaks the
// order. Entries are checked lazily: a pair is merged only if the symbol at its left position is alive and
// still forms, with its current right neighbour, a pair of the bucket's priority; stale entries are skipped.
// Figures (1 MB of 'a' with cl100k): one global heap of (priority, position) entries, 1.2 s; buckets, see
// tests/tokenizer/long_piece_test.cc.
void BpeModel::MergeWithHeap(std::vector<Symbol>& symbols) const {
  const size_t n = symbols.size();
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> next(n), prev(n);
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? static_cast<uint32_t>(i + 1) : kNone;
    prev[i] = i > 0 ? static_cast<uint32_t>(i - 1) : kNone;
  }
  auto lookup_at = [&](uint32_t left) -> std::optional<MergeResult> {
    if (left == kNone || next[left] == kNone) return std::nullopt;
    const MergeResult result = CachedLookup(symbols[left].id, symbols[next[left]].id);
    if (result.priority == kNoMerge) return std::nullopt;
    return result;
  };
  struct Bucket {
    std::vector<uint32_t> lefts;  // Queue from `head` while sorted; a min-heap of the rest once not.
    size_t head = 0;
    bool sorted = true;
  };
  absl::flat_hash_map<uint32_t, Bucket> buckets;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> priorities;
  auto push = [&](uint32_t left) {
    std::optional<MergeResult> result = lookup_at(left);
    if (!result) return;
    Bucket& bucket = buckets[result->priority];
    if (bucket.head == bucket.lefts.size()) {  // Empty: (re)start as a queue and announce the priority.
      bucket.lefts.clear();
      bucket.head = 0;
      bucket.sorted = true;
      priorities.push(result->priority);
    }
    if (bucket.sorted && !bucket.lefts.empty() && left < bucket.lefts.back()) {
      bucket.lefts.erase(bucket.lefts.begin(), bucket.lefts.begin() + static_cast<std::ptrdiff_t>(bucket.head));
      bucket.head = 0;
      std::make_heap(bucket.lefts.begin(), bucket.lefts.end(), std::greater<uint32_t>());
      bucket.sorted = false;
    }
    bucket.lefts.push_back(left);
    if (!bucket.sorted) std::push_heap(bucket.lefts.begin(), bucket.lefts.end(), std::greater<uint32_t>());
  };
  for (size_t i = 0; i + 1 < n; ++i) push(static_cast<uint32_t>(i));
  while (!priorities.empty()) {
    const uint32_t priority = priorities.top();
    Bucket& bucket = buckets[priority];
    uint32_t left;
    if (bucket.sorted) {
      left = bucket.lefts[bucket.head++];
    } else {
      std::pop_heap(bucket.lefts.begin(), bucket.lefts.end(), std::greater<uint32_t>());
      left = bucket.lefts.back();
      bucket.lefts.pop_back();
    }
    if (bucket.head == bucket.lefts.size()) {
      bucket.lefts.clear();
      bucket.head = 0;
      priorities.pop();
    }
    if (!alive[left]) continue;
    std::optional<MergeResult> result = lookup_at(left);
    if (!result || result->priority != priority) continue;  // Stale: a side merged since it was pushed.
    const uint32_t right = next[left];
    symbols[left].id = result->id;
    alive[right] = false;
    next[left] = next[right];
    if (next[right] != kNone) prev[next[right]] = left;
    if (prev[left] != kNone) push(prev[left]);
    push(left);
  }
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (alive[i]) symbols[out++] = symbols[i];
  }
  symbols.resize(out);
}

}  // namespace tokvec
