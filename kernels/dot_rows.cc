#include "kernels/dot_rows.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "kernels/cpu_features.h"

namespace tokvec {
namespace {

// The 16-lane tree of the header: (l + l+8), then + l+4, + l+2, + l+1.
float SumLanes(float lanes[16]) {
  for (int width = 8; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] = lanes[l] + lanes[l + width];
  }
  return lanes[0];
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) inline float SumLanes512(__m512 s) {
  const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1));  // lanes 8-15
  const __m256 half = _mm256_add_ps(_mm512_castps512_ps256(s), high);                   // l + l+8
  __m128 quarter = _mm_add_ps(_mm256_castps256_ps128(half), _mm256_extractf128_ps(half, 1));  // + l+4
  quarter = _mm_add_ps(quarter, _mm_movehl_ps(quarter, quarter));                            // + l+2
  quarter = _mm_add_ss(quarter, _mm_shuffle_ps(quarter, quarter, 1));                        // + l+1
  return _mm_cvtss_f32(quarter);
}

// Chunk c of p: 16 floats, the last chunk's lanes past d zero (`tail` holds the lanes that exist).
__attribute__((target("avx512f"))) inline __m512 LoadChunk(const float* p, int64_t c, int64_t chunks,
                                                          __mmask16 tail) {
  return c + 1 < chunks ? _mm512_loadu_ps(p + 16 * c) : _mm512_maskz_loadu_ps(tail, p + 16 * c);
}

// A tile of QN queries x RN rows (each at most 4): QN * RN accumulators, one chain each.
template <int QN, int RN>
__attribute__((target("avx512f"))) inline void Tile(const float* q, const float* r, int64_t n, int64_t d,
                                                    int64_t chunks, __mmask16 tail, float* out) {
  __m512 acc[QN][RN];
  for (int a = 0; a < QN; ++a) {
    for (int b = 0; b < RN; ++b) acc[a][b] = _mm512_setzero_ps();
  }
  for (int64_t c = 0; c < chunks; ++c) {
    __m512 x[RN];
    for (int b = 0; b < RN; ++b) x[b] = LoadChunk(r + b * d, c, chunks, tail);
    for (int a = 0; a < QN; ++a) {
      const __m512 y = LoadChunk(q + a * d, c, chunks, tail);
      for (int b = 0; b < RN; ++b) acc[a][b] = _mm512_fmadd_ps(y, x[b], acc[a][b]);
    }
  }
  for (int a = 0; a < QN; ++a) {
    for (int b = 0; b < RN; ++b) out[a * n + b] = SumLanes512(acc[a][b]);
  }
}

// Rows of a group of QN queries, four at a time, then the rest one by one.
template <int QN>
__attribute__((target("avx512f"))) void Queries(const float* q, const float* rows, int64_t n, int64_t d,
                                               int64_t chunks, __mmask16 tail, float* out) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) Tile<QN, 4>(q, rows + i * d, n, d, chunks, tail, out + i);
  for (; i < n; ++i) Tile<QN, 1>(q, rows + i * d, n, d, chunks, tail, out + i);
}

__attribute__((target("avx512f"))) void DotRowsAvx512(const float* queries, int64_t nq, const float* rows,
                                                     int64_t n, int64_t d, float* scores) {
  const int64_t chunks = (d + 15) / 16;
  const __mmask16 tail = static_cast<__mmask16>(d % 16 == 0 ? 0xFFFF : (1u << (d % 16)) - 1);
  int64_t q = 0;
  for (; q + 4 <= nq; q += 4) Queries<4>(queries + q * d, rows, n, d, chunks, tail, scores + q * n);
  for (; q < nq; ++q) Queries<1>(queries + q * d, rows, n, d, chunks, tail, scores + q * n);
}

// AVX2 + FMA: the 16-lane accumulator as two 8-lane halves (lanes 0-7, 8-15), the same sums.
__attribute__((target("avx2,fma"))) void DotRowsAvx2(const float* queries, int64_t nq, const float* rows,
                                                    int64_t n, int64_t d, float* scores) {
  const int64_t chunks = (d + 15) / 16;
  alignas(32) float padded_q[16], padded_r[16], lanes[16];
  for (int64_t k = 0; k < nq; ++k) {
    const float* query = queries + k * d;
    for (int64_t i = 0; i < n; ++i) {
      const float* row = rows + i * d;
      __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
      for (int64_t c = 0; c < chunks; ++c) {
        const float* x = query + 16 * c;
        const float* y = row + 16 * c;
        if (16 * c + 16 > d) {  // the last, short chunk: zeros past the end
          std::memset(padded_q, 0, sizeof(padded_q));
          std::memset(padded_r, 0, sizeof(padded_r));
          std::memcpy(padded_q, x, static_cast<size_t>(d - 16 * c) * sizeof(float));
          std::memcpy(padded_r, y, static_cast<size_t>(d - 16 * c) * sizeof(float));
          x = padded_q, y = padded_r;
        }
        low = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(y), low);
        high = _mm256_fmadd_ps(_mm256_loadu_ps(x + 8), _mm256_loadu_ps(y + 8), high);
      }
      _mm256_store_ps(lanes, low);
      _mm256_store_ps(lanes + 8, high);
      scores[k * n + i] = SumLanes(lanes);
    }
  }
}
#endif

}  // namespace

void DotRowsPortable(const float* queries, int64_t nq, const float* rows, int64_t n, int64_t d, float* scores) {
  const int64_t chunks = (d + 15) / 16;
  for (int64_t k = 0; k < nq; ++k) {
    for (int64_t i = 0; i < n; ++i) {
      float lanes[16] = {};
      for (int64_t c = 0; c < chunks; ++c) {
        for (int l = 0; l < 16; ++l) {  // past the end: fma(0, 0, acc), as the vector paths' zero padding
          const int64_t j = 16 * c + l;
          lanes[l] = std::fma(j < d ? queries[k * d + j] : 0.0f, j < d ? rows[i * d + j] : 0.0f, lanes[l]);
        }
      }
      scores[k * n + i] = SumLanes(lanes);
    }
  }
}

bool DotRowsAvx2Fma(const float* queries, int64_t nq, const float* rows, int64_t n, int64_t d, float* scores) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) DotRowsAvx2(queries, nq, rows, n, d, scores);
  return avx2;
#else
  return false;
#endif
}

void DotRows(const float* queries, int64_t nq, const float* rows, int64_t n, int64_t d, float* scores) {
#if defined(__x86_64__)
  if (Avx512Available()) return DotRowsAvx512(queries, nq, rows, n, d, scores);
#endif
  if (!DotRowsAvx2Fma(queries, nq, rows, n, d, scores)) DotRowsPortable(queries, nq, rows, n, d, scores);
}

}  // namespace tokvec
