#include "attention/sparse_pattern.h"

#include <algorithm>

#include "fmt/format.h"

namespace tokvec {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t SplitMix64(uint64_t* state) {
  *state += kGolden;
  uint64_t z = *state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Sorts, merges overlapping or touching intervals, cuts at `limit` and drops empty ones.
void Normalize(std::vector<KeyInterval>* intervals, int64_t limit) {
  std::sort(intervals->begin(), intervals->end(),
            [](const KeyInterval& a, const KeyInterval& b) { return a.begin < b.begin; });
  std::vector<KeyInterval>& v = *intervals;
  size_t n = 0;
  for (KeyInterval iv : v) {
    iv.begin = std::max<int64_t>(iv.begin, 0);
    iv.end = std::min(iv.end, limit);
    if (iv.begin >= iv.end) continue;
    if (n > 0 && iv.begin <= v[n - 1].end) {
      v[n - 1].end = std::max(v[n - 1].end, iv.end);
    } else {
      v[n++] = iv;
    }
  }
  v.resize(n);
}

}  // namespace

std::vector<int64_t> BigBirdRandomBlocks(int64_t a, int64_t n_blocks, int64_t random_blocks, int64_t global_blocks,
                                         bool causal, uint64_t seed) {
  std::vector<int64_t> candidates;
  const int64_t last = causal ? std::min(a, n_blocks - 1) : n_blocks - 1;
  for (int64_t b = std::max<int64_t>(global_blocks, 0); b <= last; ++b) {
    if (b >= a - 1 && b <= a + 1) continue;
    candidates.push_back(b);
  }
  const int64_t n = static_cast<int64_t>(candidates.size());
  const int64_t take = std::min(random_blocks, n);
  uint64_t state = seed + static_cast<uint64_t>(a + 1) * kGolden;
  for (int64_t i = 0; i < take; ++i) {
    const int64_t j = i + static_cast<int64_t>(SplitMix64(&state) % static_cast<uint64_t>(n - i));
    std::swap(candidates[static_cast<size_t>(i)], candidates[static_cast<size_t>(j)]);
  }
  candidates.resize(static_cast<size_t>(take));
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

absl::StatusOr<SparsePattern> SparsePattern::Make(const AttentionKind& kind, int64_t seq_len, bool causal,
                                                  uint64_t seed) {
  if (!kind.sparse()) {
    return absl::InvalidArgumentError(
        fmt::format("attention kind {} has no sparse pattern", AttentionKindName(kind)));
  }
  if (seq_len < 0) return absl::InvalidArgumentError(fmt::format("negative sequence length {}", seq_len));
  SparsePattern p;
  p.kind_ = kind;
  p.seq_len_ = seq_len;
  p.causal_ = causal;
  if (kind.type == AttentionKindType::kBigBird) {
    const int64_t n_blocks = (seq_len + kind.block - 1) / kind.block;
    p.random_blocks_.resize(static_cast<size_t>(n_blocks));
    for (int64_t a = kind.globals; a < n_blocks; ++a) {
      p.random_blocks_[static_cast<size_t>(a)] =
          BigBirdRandomBlocks(a, n_blocks, kind.random_blocks, kind.globals, causal, seed);
    }
  }
  return p;
}

const std::vector<int64_t>& SparsePattern::RandomBlocks(int64_t a) const {
  static const std::vector<int64_t> kNone;
  if (a < 0 || a >= static_cast<int64_t>(random_blocks_.size())) return kNone;
  return random_blocks_[static_cast<size_t>(a)];
}

void SparsePattern::RowIntervals(int64_t i, std::vector<KeyInterval>* out) const {
  out->clear();
  const int64_t limit = causal_ ? std::min(i + 1, seq_len_) : seq_len_;
  switch (kind_.type) {
    case AttentionKindType::kWindow:
    case AttentionKindType::kLongformer: {
      const int64_t w = kind_.window;
      if (kind_.type == AttentionKindType::kLongformer && i < kind_.globals) {
        out->push_back({0, limit});
        break;
      }
      if (causal_) {
        out->push_back({i - w + 1, i + 1});
      } else {
        out->push_back({i - w / 2, i + w / 2 + 1});
      }
      if (kind_.type == AttentionKindType::kLongformer && kind_.globals > 0) out->push_back({0, kind_.globals});
      break;
    }
    case AttentionKindType::kBigBird: {
      const int64_t b = kind_.block, a = i / b;
      if (a < kind_.globals) {
        out->push_back({0, limit});
        break;
      }
      out->push_back({(a - 1) * b, (a + 2) * b});
      if (kind_.globals > 0) out->push_back({0, kind_.globals * b});
      for (int64_t r : RandomBlocks(a)) out->push_back({r * b, (r + 1) * b});
      break;
    }
    default:
      out->push_back({0, limit});
  }
  Normalize(out, limit);
}

void SparsePattern::BlockIntervals(int64_t q0, int64_t q1, std::vector<KeyInterval>* out) const {
  out->clear();
  std::vector<KeyInterval> row;
  for (int64_t i = q0; i < q1; ++i) {
    RowIntervals(i, &row);
    out->insert(out->end(), row.begin(), row.end());
  }
  Normalize(out, seq_len_);
}

bool SparsePattern::Allowed(int64_t i, int64_t j) const {
  std::vector<KeyInterval> row;
  RowIntervals(i, &row);
  for (const KeyInterval& iv : row) {
    if (j >= iv.begin && j < iv.end) return true;
  }
  return false;
}

std::vector<uint8_t> SparsePattern::BlockedMask() const {
  const size_t t = static_cast<size_t>(seq_len_);
  std::vector<uint8_t> blocked(t * t, 1);
  std::vector<KeyInterval> row;
  for (int64_t i = 0; i < seq_len_; ++i) {
    RowIntervals(i, &row);
    for (const KeyInterval& iv : row) {
      std::fill(blocked.begin() + static_cast<ptrdiff_t>(i * seq_len_ + iv.begin),
                blocked.begin() + static_cast<ptrdiff_t>(i * seq_len_ + iv.end), 0);
    }
  }
  return blocked;
}

}  // namespace tokvec
