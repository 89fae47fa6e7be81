// MPNet's relative position bias (Song et al. 2020; the buckets of T5, Raffel et al. 2020): a per-head score added
// to query i's score for key j that depends only on j - i, through one of 32 buckets.
//
//   bucket(r), r = key position - query position: keys before the query (r <= 0) use buckets 0..15, keys after it
//   buckets 16..31; within a half, |r| 0..7 has a bucket each, |r| 8..127 is log-spaced over 8 more buckets
//   (8 + trunc(log(|r| / 8) / log(128 / 8) · 8), in float32), |r| >= 128 shares the last.
//
//   TOKVEC_ASSIGN_OR_RETURN(RelativePositionBias bias, RelativePositionBias::Make(weight, max_len));  // [32, H]
//   bias.FillHead(h, T, scores);  // scores[i·T + j] = weight[bucket(j - i)][h]
//
// Hugging Face: MPNetEncoder.compute_position_bias / relative_position_bucket (num_buckets 32, max_distance 128,
// whatever relative_attention_num_buckets says: that is only the weight's row count).
#ifndef TOKVEC_ATTENTION_RELATIVE_POSITION_BIAS_H_
#define TOKVEC_ATTENTION_RELATIVE_POSITION_BIAS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace tokvec {

inline constexpr int64_t kRelativeBuckets = 32;
inline constexpr int64_t kRelativeMaxDistance = 128;

// The bucket of `relative` = key position - query position, in [0, kRelativeBuckets).
int64_t RelativePositionBucket(int64_t relative);

struct RelativePositionBias {
  int64_t n_heads = 0;
  int64_t max_len = 0;       // sequences up to this many tokens
  std::vector<float> table;  // [H, 2·max_len - 1]: head h, offset r = j - i at h·(2·max_len - 1) + r + max_len - 1

  // weight: [buckets >= kRelativeBuckets, H] (encoder.relative_attention_bias.weight); InvalidArgument otherwise.
  static absl::StatusOr<RelativePositionBias> Make(MatrixView weight, int64_t max_len);
  // The bias of head h for a [len, len] block of scores, row-major into out (len <= max_len, unchecked).
  void FillHead(int64_t h, int64_t len, float* out) const;
};

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_RELATIVE_POSITION_BIAS_H_
