#include "attention/flash_attention.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/flash_kernels.h"
#include "fmt/format.h"
#include "kernels/exp16_avx512.h"
#include "kernels/ops.h"

namespace tokvec {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One row of the online softmax. s[0, valid) holds this key block's scaled scores of one query, entries
// [valid, width) are masked. On return s[0, width) holds P = exp(s - m'), zero where masked, *row_max = m',
// *row_sum = α·l + ΣP; the return value is α = exp(m - m'), the factor for the row's running context.
float OnlineSoftmaxRowScalar(float* s, int64_t valid, int64_t width, float* row_max, float* row_sum) {
  float block_max = kNegInf;
  for (int64_t j = 0; j < valid; ++j) block_max = std::max(block_max, s[j]);
  const float m_new = std::max(*row_max, block_max);
  const float alpha = *row_max == kNegInf ? 0.0f : std::exp(*row_max - m_new);
  float sum = 0.0f;
  for (int64_t j = 0; j < valid; ++j) {
    s[j] = std::exp(s[j] - m_new);
    sum += s[j];
  }
  std::fill(s + valid, s + width, 0.0f);
  *row_max = m_new;
  *row_sum = *row_sum * alpha + sum;
  return alpha;
}

#if defined(__x86_64__)
// OnlineSoftmaxRowScalar with AVX-512.
__attribute__((target("avx512f"))) float OnlineSoftmaxRowAvx512(float* s, int64_t valid, int64_t width,
                                                                   float* row_max, float* row_sum) {
  __m512 vmax = _mm512_set1_ps(kNegInf);
  int64_t j = 0;
  for (; j + 16 <= valid; j += 16) vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(s + j));
  const __mmask16 tail = static_cast<__mmask16>((1u << (valid - j)) - 1u);
  if (tail != 0) vmax = _mm512_max_ps(vmax, _mm512_mask_loadu_ps(_mm512_set1_ps(kNegInf), tail, s + j));
  const float m_new = std::max(*row_max, _mm512_reduce_max_ps(vmax));
  const float alpha = *row_max == kNegInf ? 0.0f : std::exp(*row_max - m_new);
  const __m512 vm = _mm512_set1_ps(m_new);
  __m512 vsum = _mm512_setzero_ps();
  for (j = 0; j + 16 <= valid; j += 16) {
    const __m512 p = Exp16(_mm512_sub_ps(_mm512_loadu_ps(s + j), vm));
    _mm512_storeu_ps(s + j, p);
    vsum = _mm512_add_ps(vsum, p);
  }
  if (tail != 0) {
    const __m512 p = _mm512_maskz_mov_ps(tail, Exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, s + j), vm)));
    _mm512_mask_storeu_ps(s + j, tail, p);
    vsum = _mm512_add_ps(vsum, p);
  }
  std::fill(s + valid, s + width, 0.0f);
  *row_max = m_new;
  *row_sum = *row_sum * alpha + _mm512_reduce_add_ps(vsum);
  return alpha;
}

#else
float OnlineSoftmaxRowAvx512(float* s, int64_t valid, int64_t width, float* row_max, float* row_sum) {
  return OnlineSoftmaxRowScalar(s, valid, width, row_max, row_sum);
}
#endif

}  // namespace

float OnlineSoftmaxRow(float* s, int64_t valid, int64_t width, float* row_max, float* row_sum, bool avx512) {
  return avx512 ? OnlineSoftmaxRowAvx512(s, valid, width, row_max, row_sum)
                : OnlineSoftmaxRowScalar(s, valid, width, row_max, row_sum);
}

FlashHeadTiles::FlashHeadTiles(StridedView q, StridedView k, StridedView v, FlashScratch* scratch, bool portable)
    : q_(q), k_(k), v_(v), scratch_(scratch) {
  UseSingleThreadedBlas();
  const int64_t k_len = k.rows, v_dim = v.cols;
  avx512_ = !portable && Avx512Available();
  kernels_ = avx512_ && TileContextSupports(v_dim);  // else cblas_sgemm per product
  scratch->scores.resize(static_cast<size_t>(kFlashQueryBlock * kFlashKeyBlock));
  scratch->row_max.resize(static_cast<size_t>(kFlashQueryBlock));
  scratch->row_sum.resize(static_cast<size_t>(kFlashQueryBlock));
  scratch->row_alpha.resize(static_cast<size_t>(kFlashQueryBlock));
  v_data_ = v.data;
  v_stride_ = v.stride;
  if (kernels_) {
    PackKeyPanels(k, &scratch->key_panels);  // [ceil(Tk/32), Dk, 32]
    // A contiguous copy of V: rows of a [T, 3D] buffer sit 9 KB apart (3 KB in `bench attention`), so the
    // 256-byte rows of a key block fall into a quarter of the L1 sets and P·V re-read them from L2 for every
    // group of 6 query rows. The copy is T·Dv floats per head, like the key panels.
    scratch->value_rows.resize(static_cast<size_t>(k_len * v_dim));
    for (int64_t j = 0; j < k_len; ++j) std::copy_n(v.data + j * v.stride, v_dim, &scratch->value_rows[j * v_dim]);
    v_data_ = scratch->value_rows.data();
    v_stride_ = v_dim;
  }
}

void FlashHeadTiles::Scores(int64_t q0, int64_t rows, int64_t k0, int64_t cols, float scale) const {
  float* scores = scratch_->scores.data();
  if (kernels_) {
    TileScores(q_.data + q0 * q_.stride, q_.stride, rows, q_.cols, scratch_->key_panels.data(), k0, cols, scale,
               scores, kFlashKeyBlock);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows), static_cast<blasint>(cols),
              static_cast<blasint>(q_.cols), scale, q_.data + q0 * q_.stride, static_cast<blasint>(q_.stride),
              k_.data + k0 * k_.stride, static_cast<blasint>(k_.stride), 0.0f, scores,
              static_cast<blasint>(kFlashKeyBlock));
}

void FlashHeadTiles::Context(int64_t rows, int64_t k0, int64_t cols, float* o, int64_t out_stride) const {
  const float* scores = scratch_->scores.data();
  const float* row_alpha = scratch_->row_alpha.data();
  const int64_t v_dim = v_.cols;
  if (kernels_) {
    TileContext(scores, kFlashKeyBlock, rows, cols, v_data_ + k0 * v_stride_, v_stride_, v_dim, row_alpha, o,
                out_stride);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (row_alpha[r] == 1.0f) continue;
    float* o_row = o + r * out_stride;
    for (int64_t c = 0; c < v_dim; ++c) o_row[c] *= row_alpha[r];
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows), static_cast<blasint>(v_dim),
              static_cast<blasint>(cols), 1.0f, scores, static_cast<blasint>(kFlashKeyBlock),
              v_.data + k0 * v_.stride, static_cast<blasint>(v_.stride), 1.0f, o, static_cast<blasint>(out_stride));
}

void FlashHeadTiles::Start(int64_t rows, float* o, int64_t out_stride) const {
  for (int64_t r = 0; r < rows; ++r) std::fill_n(o + r * out_stride, v_.cols, 0.0f);
  std::fill_n(scratch_->row_max.data(), rows, kNegInf);
  std::fill_n(scratch_->row_sum.data(), rows, 0.0f);
}

void FlashHeadTiles::Normalize(int64_t rows, float* o, int64_t out_stride) const {
  const float* row_sum = scratch_->row_sum.data();
  for (int64_t r = 0; r < rows; ++r) {
    if (row_sum[r] == 0.0f) continue;
    const float inv = 1.0f / row_sum[r];
    float* o_row = o + r * out_stride;
    for (int64_t c = 0; c < v_.cols; ++c) o_row[c] *= inv;
  }
}

void FlashHeadTiles::UpdateRow(int64_t r, int64_t valid, int64_t cols) const {
  float* s = scratch_->scores.data() + r * kFlashKeyBlock;
  if (valid == 0) {
    std::fill_n(s, cols, 0.0f);
    scratch_->row_alpha[r] = 1.0f;
    return;
  }
  scratch_->row_alpha[r] =
      OnlineSoftmaxRow(s, valid, cols, &scratch_->row_max[r], &scratch_->row_sum[r], avx512_);
}

void FlashAttendHead(StridedView q, StridedView k, StridedView v, bool causal, float scale,
                     FlashScratch* scratch, float* out, int64_t out_stride, bool portable) {
  const FlashHeadTiles tiles(q, k, v, scratch, portable);
  const int64_t q_len = q.rows, k_len = k.rows;
  const int64_t offset = k_len - q_len;  // causal: query i sees keys j <= i + offset
  for (int64_t q0 = 0; q0 < q_len; q0 += kFlashQueryBlock) {
    const int64_t rows = std::min(kFlashQueryBlock, q_len - q0);
    float* o = out + q0 * out_stride;  // [rows, Dv], running (unnormalized) context
    tiles.Start(rows, o, out_stride);
    // Keys visible to the block's last query; later key blocks are fully masked and skipped.
    const int64_t k_end = causal ? std::clamp<int64_t>(q0 + rows + offset, 0, k_len) : k_len;
    for (int64_t k0 = 0; k0 < k_end; k0 += kFlashKeyBlock) {
      const int64_t cols = std::min(kFlashKeyBlock, k_end - k0);
      tiles.Scores(q0, rows, k0, cols, scale);  // 1. S = scale · Q_b·K_bᵀ   [rows, cols], row stride Bk
      for (int64_t r = 0; r < rows; ++r) {      // 2. online softmax per row: P and α
        const int64_t valid = causal ? std::clamp<int64_t>(q0 + r + offset - k0 + 1, 0, cols) : cols;
        tiles.UpdateRow(r, valid, cols);
      }
      tiles.Context(rows, k0, cols, o, out_stride);  // 3. O = diag(α)·O + P·V_b   [rows, Dv]
    }
    tiles.Normalize(rows, o, out_stride);  // 4. O /= l (a row that saw no key stays zero)
  }
}

absl::StatusOr<Matrix> FlashAttention(MatrixView q, MatrixView k, MatrixView v,
                                      const FlashAttentionOptions& options) {
  const int64_t n_heads = options.n_heads;
  if (n_heads <= 0 || q.cols % n_heads != 0 || v.cols % n_heads != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "query width {} and value width {} must both be divisible by n_heads {}", q.cols, v.cols, n_heads));
  }
  if (q.cols != k.cols) {
    return absl::InvalidArgumentError(fmt::format(
        "queries have width {} but keys have width {}; Q·Kᵀ needs equal widths", q.cols, k.cols));
  }
  if (k.rows != v.rows) {
    return absl::InvalidArgumentError(
        fmt::format("{} keys but {} values; each key needs one value row", k.rows, v.rows));
  }
  const int64_t head_dim = q.cols / n_heads, v_dim = v.cols / n_heads;
  const float scale =
      options.scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim))));
  Matrix context(q.rows, v.cols);  // [Tq, H·Dv]
  ParallelFor(n_heads, options.threads, [&](int64_t h) {
    FlashScratch scratch;
    FlashAttendHead({q.data + h * head_dim, q.rows, head_dim, q.cols},
                    {k.data + h * head_dim, k.rows, head_dim, k.cols},
                    {v.data + h * v_dim, v.rows, v_dim, v.cols}, options.causal, scale, &scratch,
                    context.data() + h * v_dim, v.cols, options.portable);
  });
  return context;
}

}  // namespace tokvec
