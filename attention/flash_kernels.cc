#include "attention/flash_kernels.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tokvec {

#if defined(__x86_64__)
namespace {

// One panel with AVX-512 gathers: for each of the Dk columns, the column's values of (up to) 32 keys, 16 per
// gather; missing keys read as 0. Why: the scalar scatter (one 4-byte store per element, 128 bytes apart) ran at
// ~1.4 ns per element, 1.1% of the 1-thread `tokvec bench layer` profile.
__attribute__((target("avx512f"))) void PackKeyPanelAvx512(const float* keys, int64_t count, int64_t stride,
                                                           int64_t dk, float* panel) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i index = _mm512_mullo_epi32(lane, _mm512_set1_epi32(static_cast<int>(stride)));
  const __mmask16 low = count >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << count) - 1u);
  const __mmask16 high = count >= 32   ? 0xFFFF
                         : count <= 16 ? 0
                                       : static_cast<__mmask16>((1u << (count - 16)) - 1u);
  const float* second = count > 16 ? keys + 16 * stride : keys;  // keys 16..31 (read only through `high`)
  for (int64_t c = 0; c < dk; ++c) {
    _mm512_storeu_ps(panel + c * kKeyPanel,
                     _mm512_mask_i32gather_ps(_mm512_setzero_ps(), low, index, keys + c, 4));
    _mm512_storeu_ps(panel + c * kKeyPanel + 16,
                     _mm512_mask_i32gather_ps(_mm512_setzero_ps(), high, index, second + c, 4));
  }
}

}  // namespace
#endif

void PackKeyPanels(StridedView k, std::vector<float>* panels) {
  const int64_t n_panels = (k.rows + kKeyPanel - 1) / kKeyPanel, dk = k.cols;
  panels->resize(static_cast<size_t>(n_panels * dk * kKeyPanel));
#if defined(__x86_64__)
  // 32 gathered offsets up to 31·stride must fit the gather's 32-bit indices.
  if (Avx512Available() && 31 * k.stride <= (int64_t{1} << 30)) {
    for (int64_t p = 0; p < n_panels; ++p) {
      PackKeyPanelAvx512(k.data + p * kKeyPanel * k.stride, std::min(kKeyPanel, k.rows - p * kKeyPanel), k.stride,
                         dk, panels->data() + p * dk * kKeyPanel);
    }
    return;
  }
#endif
  // Only a last partial panel needs zeros (missing keys); a full refill cost 7.5% of `bench attention` at T=128.
  if (k.rows % kKeyPanel != 0) {
    std::fill(panels->end() - dk * kKeyPanel, panels->end(), 0.0f);
  }
  for (int64_t j = 0; j < k.rows; ++j) {
    float* panel = panels->data() + (j / kKeyPanel) * dk * kKeyPanel;  // [Dk, 32]
    const float* key = k.data + j * k.stride;
    for (int64_t c = 0; c < dk; ++c) panel[c * kKeyPanel + j % kKeyPanel] = key[c];
  }
}

#if defined(__x86_64__)

namespace {

// R queries x 32 keys: 2·R accumulators; per step of the Dk loop 2 panel loads feed 2·R FMAs whose other
// operand is a broadcast query element.
template <int R>
__attribute__((target("avx512f"))) void ScoreTile(const float* q, int64_t q_stride, int64_t head_dim,
                                                   const float* panel, float scale, float* s, int64_t s_stride) {
  __m512 acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t c = 0; c < head_dim; ++c) {
    const __m512 k0 = _mm512_loadu_ps(panel + c * kKeyPanel);
    const __m512 k1 = _mm512_loadu_ps(panel + c * kKeyPanel + 16);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 b = _mm512_set1_ps(q[r * q_stride + c]);
      acc[r][0] = _mm512_fmadd_ps(b, k0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(b, k1, acc[r][1]);
    }
  }
  const __m512 vscale = _mm512_set1_ps(scale);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(s + r * s_stride, _mm512_mul_ps(acc[r][0], vscale));
    _mm512_storeu_ps(s + r * s_stride + 16, _mm512_mul_ps(acc[r][1], vscale));
  }
}

using ScoreTileFn = void (*)(const float*, int64_t, int64_t, const float*, float, float*, int64_t);
constexpr ScoreTileFn kScoreTiles[9] = {nullptr,      ScoreTile<1>, ScoreTile<2>, ScoreTile<3>, ScoreTile<4>,
                                        ScoreTile<5>, ScoreTile<6>, ScoreTile<7>, ScoreTile<8>};

// R queries x NV·16 value columns: R·NV accumulators start as α·O; per key, NV value loads feed R·NV FMAs.
template <int R, int NV>
__attribute__((target("avx512f"))) void ContextTile(const float* p, int64_t p_stride, int64_t cols, const float* v,
                                                     int64_t v_stride, const float* alpha, float* o,
                                                     int64_t o_stride) {
  __m512 acc[R][NV];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m512 a = _mm512_set1_ps(alpha[r]);
#pragma GCC unroll 4
    for (int n = 0; n < NV; ++n) acc[r][n] = _mm512_mul_ps(a, _mm512_loadu_ps(o + r * o_stride + 16 * n));
  }
  for (int64_t j = 0; j < cols; ++j) {
    __m512 vj[NV];
#pragma GCC unroll 4
    for (int n = 0; n < NV; ++n) vj[n] = _mm512_loadu_ps(v + j * v_stride + 16 * n);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 b = _mm512_set1_ps(p[r * p_stride + j]);
#pragma GCC unroll 4
      for (int n = 0; n < NV; ++n) acc[r][n] = _mm512_fmadd_ps(b, vj[n], acc[r][n]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int n = 0; n < NV; ++n) _mm512_storeu_ps(o + r * o_stride + 16 * n, acc[r][n]);
  }
}

// Rows per context tile: 6 rows x 4 vectors = 24 accumulators + 4 value registers of the 32 zmm.
constexpr int kContextRows = 6;
using ContextTileFn = void (*)(const float*, int64_t, int64_t, const float*, int64_t, const float*, float*,
                               int64_t);

template <int NV>
constexpr ContextTileFn kContextTiles[kContextRows + 1] = {
    nullptr, ContextTile<1, NV>, ContextTile<2, NV>, ContextTile<3, NV>, ContextTile<4, NV>, ContextTile<5, NV>,
    ContextTile<6, NV>};

}  // namespace

void TileScores(const float* q, int64_t q_stride, int64_t rows, int64_t head_dim, const float* panels, int64_t k0,
                int64_t cols, float scale, float* s, int64_t s_stride) {
  for (int64_t j = 0; j < cols; j += kKeyPanel) {
    const float* panel = panels + ((k0 + j) / kKeyPanel) * head_dim * kKeyPanel;  // [Dk, 32]
    for (int64_t i = 0; i < rows; i += 8) {
      const int64_t n = std::min<int64_t>(8, rows - i);
      kScoreTiles[n](q + i * q_stride, q_stride, head_dim, panel, scale, s + i * s_stride + j, s_stride);
    }
  }
}

void TileContext(const float* p, int64_t p_stride, int64_t rows, int64_t cols, const float* v, int64_t v_stride,
                 int64_t v_dim, const float* alpha, float* o, int64_t o_stride) {
  const ContextTileFn* tiles = v_dim == 64   ? kContextTiles<4>
                               : v_dim == 48 ? kContextTiles<3>
                               : v_dim == 32 ? kContextTiles<2>
                                             : kContextTiles<1>;
  // Whole key block per row group: chunking the keys so a chunk of V stays in L1 measured slower (user time of
  // the 4-head T=4096 bench: 0.65 s unchunked, 0.67 s with 128-key chunks, 0.69 s with 64).
  for (int64_t i = 0; i < rows; i += kContextRows) {
    const int64_t n = std::min<int64_t>(kContextRows, rows - i);
    tiles[n](p + i * p_stride, p_stride, cols, v, v_stride, alpha + i, o + i * o_stride, o_stride);
  }
}

#else  // not x86-64: never selected (Avx512Available() is false); plain loops keep the library linkable.

void TileScores(const float* q, int64_t q_stride, int64_t rows, int64_t head_dim, const float* panels, int64_t k0,
                int64_t cols, float scale, float* s, int64_t s_stride) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t key = k0 + j;
      const float* panel = panels + (key / kKeyPanel) * head_dim * kKeyPanel;
      float dot = 0.0f;
      for (int64_t c = 0; c < head_dim; ++c) dot += q[i * q_stride + c] * panel[c * kKeyPanel + key % kKeyPanel];
      s[i * s_stride + j] = scale * dot;
    }
  }
}

void TileContext(const float* p, int64_t p_stride, int64_t rows, int64_t cols, const float* v, int64_t v_stride,
                 int64_t v_dim, const float* alpha, float* o, int64_t o_stride) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t c = 0; c < v_dim; ++c) {
      float acc = alpha[i] * o[i * o_stride + c];
      for (int64_t j = 0; j < cols; ++j) acc += p[i * p_stride + j] * v[j * v_stride + c];
      o[i * o_stride + c] = acc;
    }
  }
}

#endif

}  // namespace tokvec
