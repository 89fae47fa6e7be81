// Tiled scaled dot-product attention with an online softmax: FlashAttention (Dao et al. 2022,
// https://arxiv.org/abs/2205.14135) on the CPU, using the one-pass softmax of Milakov & Gimelshein 2018
// (https://arxiv.org/abs/1805.02867). Same result as ScaledDotProductAttention (scaled_dot_product.h) without
// ever holding the [Tq, Tk] score matrix: memory is linear in the sequence length.
//
//   FlashAttentionOptions options{.n_heads = 12, .causal = true, .threads = 2};
//   TOKVEC_ASSIGN_OR_RETURN(Matrix context, FlashAttention(q.view(), k.view(), v.view(), options));
//   // q: [Tq, H·Dh], k, v: [Tk, H·Dh] with head h in columns [h·Dh, (h+1)·Dh) -> context [Tq, H·Dh]
//
// Per head and per block of kFlashQueryBlock queries, the keys are visited in blocks of kFlashKeyBlock:
//
//   S = scale · Q_b·K_bᵀ                                   // [Bq, Bk], one cblas_sgemm
//   m' = max(m, rowmax(S));  P = exp(S - m');  α = exp(m - m')
//   l = α·l + rowsum(P);     O = α·O + P·V_b               // O: [Bq, Dv], one cblas_sgemm (beta = 1)
//   ...after the last key block: O /= l
//
// With `causal`, key blocks entirely above the diagonal are skipped (about half the work) and the diagonal
// block masks element-wise. On AVX-512 CPUs the two products run in the micro-kernels of flash_kernels.h and the
// exp/max/sum pass is vectorized (function-level __attribute__((target("avx512f"))), chosen at run time by
// __builtin_cpu_supports: the default build needs no -march flag and the binary still runs on any x86-64);
// otherwise (or with `portable`) the products are cblas_sgemm calls and the pass is a scalar loop.
// Heads run in parallel over `threads`; a head's arithmetic never depends on the thread count.
#ifndef TOKVEC_ATTENTION_FLASH_ATTENTION_H_
#define TOKVEC_ATTENTION_FLASH_ATTENTION_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/scaled_dot_product.h"
#include "kernels/tensor.h"

namespace tokvec {

// Tile sizes: the score tile (Bq·Bk floats = 256 KiB) stays in the per-core L2 (2 MB). With cblas tiles,
// 128 x 512 and 256 x 256 measured alike (Q·Kᵀ 44–54, P·V 54–63 GFLOP/s against sgemm 60–68 on the shared
// machine); not re-tuned for the AVX-512 kernels.
inline constexpr int64_t kFlashQueryBlock = 128;
inline constexpr int64_t kFlashKeyBlock = 512;

// Per-thread working memory of one head: the score tile, the running max / sum / rescale factor per query row
// and (AVX-512 path) the keys transposed in panels of 32 and the values copied contiguously (flash_kernels.h).
struct FlashScratch {
  std::vector<float> scores;      // [Bq, Bk]
  std::vector<float> row_max;     // [Bq]
  std::vector<float> row_sum;     // [Bq]
  std::vector<float> row_alpha;   // [Bq]
  std::vector<float> key_panels;  // [ceil(Tk/32), Dk, 32]
  std::vector<float> value_rows;  // [Tk, Dv] (AVX-512 path) the head's values, contiguous
};

// Unchecked kernel for one head. q: [Tq, Dk], k: [Tk, Dk], v: [Tk, Dv] (strided views); context row r is
// written to out + r * out_stride (Dv floats). Causal means query i sees keys j <= i + (Tk - Tq), as in
// AttentionMask. A query with no visible key gets a zero context row (as the reference path).
// `portable` forces the scalar exp pass.
void FlashAttendHead(StridedView q, StridedView k, StridedView v, bool causal, float scale,
                     FlashScratch* scratch, float* out, int64_t out_stride, bool portable = false);

// Step 2 for one row (exported for the sparse kernel, sparse_attention.h): s[0, valid) holds a key block's scaled
// scores of one query (at least one finite), entries [valid, width) are masked. On return s[0, width) holds
// P = exp(s - m') (zero past valid), *row_max = m', *row_sum = α·l + ΣP; returns α = exp(m - m'). `avx512`: the
// vectorized pass (only when Avx512Available()).
float OnlineSoftmaxRow(float* s, int64_t valid, int64_t width, float* row_max, float* row_sum, bool avx512);

// Steps 1, 3 and 4 of one head, on the AVX-512 micro-kernels (flash_kernels.h) or cblas_sgemm, with the step-2
// row update; shared by FlashAttendHead and the sparse kernel (sparse_attention.h). The constructor packs the keys
// and copies the values into `scratch` (kernel path). Per query block: Start, then per key tile Scores (the
// scores are scratch->scores, row stride kFlashKeyBlock, for the caller to mask), UpdateRow for each row, Context;
// then Normalize.
class FlashHeadTiles {
 public:
  FlashHeadTiles(StridedView q, StridedView k, StridedView v, FlashScratch* scratch, bool portable);

  void Start(int64_t rows, float* o, int64_t out_stride) const;
  void Scores(int64_t q0, int64_t rows, int64_t k0, int64_t cols, float scale) const;
  float* scores_row(int64_t r) const { return scratch_->scores.data() + r * kFlashKeyBlock; }
  // Row r's online-softmax step over [0, valid) of `cols` (valid 0: nothing visible in this tile).
  void UpdateRow(int64_t r, int64_t valid, int64_t cols) const;
  void Context(int64_t rows, int64_t k0, int64_t cols, float* o, int64_t out_stride) const;
  void Normalize(int64_t rows, float* o, int64_t out_stride) const;

 private:
  StridedView q_, k_, v_;
  FlashScratch* scratch_;
  bool avx512_ = false;
  bool kernels_ = false;
  const float* v_data_ = nullptr;
  int64_t v_stride_ = 0;
};

struct FlashAttentionOptions {
  int64_t n_heads = 1;
  bool causal = false;
  int threads = 1;
  std::optional<float> scale;  // default 1/√head_dim
  bool portable = false;       // force the scalar exp pass even on AVX-512 (tests check both)
};

// Multi-head: q: [Tq, H·Dh], k: [Tk, H·Dh], v: [Tk, H·Dv] -> [Tq, H·Dv]. InvalidArgument (naming the shapes)
// when widths differ, keys and values disagree in length, or a width is not divisible by n_heads.
absl::StatusOr<Matrix> FlashAttention(MatrixView q, MatrixView k, MatrixView v,
                                      const FlashAttentionOptions& options);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_FLASH_ATTENTION_H_
