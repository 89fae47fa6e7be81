// Which keys each query sees under a sparse kind of attention (attention_kind.h; docs/attention_kinds.md):
//
//   window:W          causal: i - W < j <= i;  bidirectional: |i - j| <= W/2
//   longformer:W,G    the window, plus the first G tokens attend to and are attended by every token
//   bigbird:B,R,G     blocks of B tokens: neighbour blocks, R seeded random blocks, G global blocks
//
//   TOKVEC_ASSIGN_OR_RETURN(SparsePattern pattern, SparsePattern::Make(kind, /*seq_len=*/4096, /*causal=*/true,
//                                                                       /*seed=*/0));
//   pattern.RowIntervals(100, &intervals);  // window:64 causal -> {[37, 101)}
//
// Intervals are sorted, disjoint, non-adjacent half-open key ranges, the causal cut (j <= i) applied. Key padding
// is not part of the pattern (the kernels apply it). The pattern is immutable: share it across heads and threads.
#ifndef TOKVEC_ATTENTION_SPARSE_PATTERN_H_
#define TOKVEC_ATTENTION_SPARSE_PATTERN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_kind.h"

namespace tokvec {

struct KeyInterval {
  int64_t begin = 0;
  int64_t end = 0;  // one past the last key
};

class SparsePattern {
 public:
  // kind.sparse() (else InvalidArgument), seq_len >= 0. `seed` draws BigBird's random blocks.
  static absl::StatusOr<SparsePattern> Make(const AttentionKind& kind, int64_t seq_len, bool causal, uint64_t seed);

  // The keys query i sees, replacing *out.
  void RowIntervals(int64_t i, std::vector<KeyInterval>* out) const;
  // The union of RowIntervals over queries [q0, q1), replacing *out.
  void BlockIntervals(int64_t q0, int64_t q1, std::vector<KeyInterval>* out) const;
  bool Allowed(int64_t i, int64_t j) const;
  // [T * T] row-major, 1 = not allowed (AttentionMask::blocked's convention); for the dense reference path.
  std::vector<uint8_t> BlockedMask() const;
  // BigBird: the random key blocks of query block a, sorted (empty for the other kinds and global blocks).
  const std::vector<int64_t>& RandomBlocks(int64_t a) const;

  int64_t seq_len() const { return seq_len_; }
  bool causal() const { return causal_; }
  const AttentionKind& kind() const { return kind_; }

 private:
  SparsePattern() = default;
  AttentionKind kind_;
  int64_t seq_len_ = 0;
  bool causal_ = false;
  std::vector<std::vector<int64_t>> random_blocks_;  // bigbird: [query block] -> key blocks
};

// BigBird's random key blocks of query block `a` (docs/attention_kinds.md: candidates in increasing order, the
// first min(R, n) places shuffled by splitmix64 seeded with seed + (a + 1)·0x9E3779B97F4A7C15), sorted.
std::vector<int64_t> BigBirdRandomBlocks(int64_t a, int64_t n_blocks, int64_t random_blocks, int64_t global_blocks,
                                         bool causal, uint64_t seed);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_SPARSE_PATTERN_H_
