#include "tokenizer/bpe_model.h"

#include <limits>
#include <cstring>
#include <queue>

#include "fmt/format.h"

namespace tokvec {
namespace {

// Pieces up to this many symbols merge by rescanning (fewer instructions than heap upkeep for typical
// words); longer ones use the heap so that 1 MB without a split point stays O(n log n).
constexpr size_t kRescanLimit = 48;

}  // namespace

BpeModel::BpeModel(Rule rule, std::vector<std::string> tokens) : rule_(rule), tokens_(std::move(tokens)) {}

absl::StatusOr<BpeModel> BpeModel::FromRanks(std::vector<std::string> tokens) {
  if (tokens.size() >= std::numeric_limits<TokenId>::max()) {
    return absl::InvalidArgumentError("too many tokens");
  }
  BpeModel model(Rule::kRanks, std::move(tokens));
  model.ids_.reserve(model.tokens_.size());
  for (TokenId id = 0; id < model.tokens_.size(); ++id) {
    const std::string& bytes = model.tokens_[id];
    if (bytes.empty()) continue;
    auto [it, inserted] = model.ids_.emplace(bytes, id);
    if (!inserted) {
      return absl::InvalidArgumentError(
          fmt::format("token {} has the same bytes as token {}; every token must be distinct", id, it->second));
    }
  }
  return model;
}

absl::StatusOr<BpeModel> BpeModel::FromMerges(std::vector<std::string> tokens, std::vector<MergePair> merges) {
  absl::StatusOr<BpeModel> base = FromRanks(std::move(tokens));
  if (!base.ok()) return base.status();
  BpeModel model = std::move(base).value();
  model.rule_ = Rule::kMergeList;
  model.merge_lookup_.reserve(merges.size());
  for (uint32_t rank = 0; rank < merges.size(); ++rank) {
    const MergePair& pair = merges[rank];
    if (pair.left >= model.tokens_.size() || pair.right >= model.tokens_.size() ||
        model.tokens_[pair.left].empty() || model.tokens_[pair.right].empty()) {
      return absl::InvalidArgumentError(fmt::format("merge {} names a token id that is not in the vocabulary", rank));
    }
    std::optional<TokenId> result = model.Find(model.tokens_[pair.left] + model.tokens_[pair.right]);
    if (!result) {
      return absl::InvalidArgumentError(
          fmt::format("merge {} makes a token that is not in the vocabulary (ids {} and {})", rank, pair.left,
                      pair.right));
    }
    // A pair listed twice keeps its first (lowest) rank, as Hugging Face does.
    model.merge_lookup_.emplace(PairKey(pair.left, pair.right), MergeResult{rank, *result});
  }
  model.merges_ = std::move(merges);
  return model;
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
  if (symbols.size() <= kRescanLimit) {
    MergeReference(symbols);
  } else {
    MergeWithHeap(symbols);
  }
}

// Heap of candidate pairs keyed by (priority, left position), with lazy invalidation: an entry is stale when
// either symbol it names has since merged, which we detect by checking that the pair still sits at its
// position with the same ids. Positions are original indices, so "leftmost on a tie" is the smaller index.
void BpeModel::MergeWithHeap(std::vector<Symbol>& symbols) const {
  const size_t n = symbols.size();
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> next(n), prev(n);
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : kNone;
    prev[i] = i > 0 ? i - 1 : kNone;
  }
  // 32-bit fields keep a candidate at 24 bytes (pieces are far below 4 GiB symbols).
  struct Candidate {
    uint32_t priority;
    uint32_t left;
    uint32_t right;
    TokenId left_id;
    TokenId right_id;
    TokenId result;
    bool operator>(const Candidate& other) const {
      return priority != other.priority ? priority > other.priority : left > other.left;
    }
  };
  // Long pieces repeat the same few pairs: a direct-mapped cache of Lookup saves most hash probes (kRanks
  // lookups hash the joined bytes). 1 MB of 'a' with cl100k: 1.2 s -> see tests/tokenizer/tiktoken_file_test.cc.
  struct CachedLookup {
    uint64_t key = ~uint64_t{0};
    std::optional<MergeResult> result;
  };
  std::vector<CachedLookup> cache(4096);
  auto cached_lookup = [&](TokenId left, TokenId right) {
    const uint64_t key = PairKey(left, right);
    CachedLookup& slot = cache[(key * 0x9E3779B97F4A7C15ull) >> 52];
    if (slot.key != key) slot = {key, Lookup(left, right)};
    return slot.result;
  };
  std::vector<Candidate> initial;
  initial.reserve(n);
  auto candidate = [&](size_t left) -> std::optional<Candidate> {
    if (left == kNone || next[left] == kNone) return std::nullopt;
    size_t right = next[left];
    std::optional<MergeResult> result = cached_lookup(symbols[left].id, symbols[right].id);
    if (!result) return std::nullopt;
    return Candidate{result->priority, static_cast<uint32_t>(left), static_cast<uint32_t>(right), symbols[left].id,
                     symbols[right].id, result->id};
  };
  for (size_t i = 0; i + 1 < n; ++i) {
    if (std::optional<Candidate> c = candidate(i)) initial.push_back(*c);
  }
  // Building the heap in one pass is O(n), n pushes are O(n log n).
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap(std::greater<Candidate>(),
                                                                                      std::move(initial));
  auto push = [&](size_t left) {
    if (std::optional<Candidate> c = candidate(left)) heap.push(*c);
  };
  while (!heap.empty()) {
    Candidate c = heap.top();
    heap.pop();
    if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right || symbols[c.left].id != c.left_id ||
        symbols[c.right].id != c.right_id) {
      continue;  // Stale: one side merged since this entry was pushed.
    }
    symbols[c.left].id = c.result;
    alive[c.right] = false;
    next[c.left] = next[c.right];
    if (next[c.right] != kNone) prev[next[c.right]] = c.left;
    push(prev[c.left]);
    push(c.left);
  }
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (alive[i]) symbols[out++] = symbols[i];
  }
  symbols.resize(out);
}

}  // namespace tokvec
