#include "kernels/layer_norm_rows.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tokvec {
namespace {

#if defined(__x86_64__)
// 8 floats as 8 doubles. (The maskz forms: GCC 12 warns about the undefined pass-through of the plain ones.)
__attribute__((target("avx512f"))) inline __m512d Load8(const float* p) {
  return _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p));
}

// Sum of the 8 lanes (not _mm512_reduce_add_pd: GCC 12 warns about its undefined pass-through).
__attribute__((target("avx512f"))) inline double SumLanes(__m512d v) {
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, v);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// y[0, 8) = (x - mean) · inv_std · gamma + beta.
__attribute__((target("avx512f"))) inline void Normalize8(const float* x, const float* gamma, const float* beta,
                                                          __m512d mean, __m512d inv_std, float* y) {
  const __m512d v = _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(Load8(x), mean), inv_std), Load8(gamma));
  _mm256_storeu_ps(y, _mm512_maskz_cvtpd_ps(0xFF, _mm512_add_pd(v, Load8(beta))));
}

// One row: the double statistics of LayerNormInto, then y = (x - mean) · inv_std · gamma + beta in double,
// multiplied and added in LayerNormInto's order (no fused multiply-add). A last partial vector goes through
// zero-padded copies.
__attribute__((target("avx512f"))) void LayerNormRowAvx512(const float* x, int64_t d, const float* gamma,
                                                           const float* beta, float eps, float* y) {
  const int64_t full = d / 8 * 8, rest = d - full;
  alignas(32) float x_tail[8] = {}, g_tail[8] = {}, b_tail[8] = {}, y_tail[8];
  std::copy_n(x + full, rest, x_tail);
  std::copy_n(gamma + full, rest, g_tail);
  std::copy_n(beta + full, rest, b_tail);
  __m512d sum = _mm512_setzero_pd();
  for (int64_t i = 0; i < full; i += 8) sum = _mm512_add_pd(sum, Load8(x + i));
  if (rest > 0) sum = _mm512_add_pd(sum, Load8(x_tail));
  const double mean = SumLanes(sum) / static_cast<double>(d);
  const __m512d vmean = _mm512_set1_pd(mean);
  __m512d sq = _mm512_setzero_pd();
  for (int64_t i = 0; i < full; i += 8) {
    const __m512d c = _mm512_sub_pd(Load8(x + i), vmean);
    sq = _mm512_add_pd(sq, _mm512_mul_pd(c, c));
  }
  if (rest > 0) {  // padding lanes would add mean²: keep the first `rest`
    const __m512d c = _mm512_maskz_sub_pd(static_cast<__mmask8>((1u << rest) - 1u), Load8(x_tail), vmean);
    sq = _mm512_add_pd(sq, _mm512_mul_pd(c, c));
  }
  const double inv_std = 1.0 / std::sqrt(SumLanes(sq) / static_cast<double>(d) + eps);
  const __m512d vinv = _mm512_set1_pd(inv_std);
  for (int64_t i = 0; i < full; i += 8) Normalize8(x + i, gamma + i, beta + i, vmean, vinv, y + i);
  if (rest > 0) {
    Normalize8(x_tail, g_tail, b_tail, vmean, vinv, y_tail);
    std::copy_n(y_tail, rest, y + full);
  }
}
#endif

}  // namespace

void LayerNormRowsInto(MatrixView x, const LayerNormWeights& w, float* y) {
#if defined(__x86_64__)
  if (Avx512Available()) {
    for (int64_t r = 0; r < x.rows; ++r) {
      LayerNormRowAvx512(x.row(r), x.cols, w.gamma.data(), w.beta.data(), w.eps, y + r * x.cols);
    }
    return;
  }
#endif
  LayerNormInto(x, w, y);
}

}  // namespace tokvec
