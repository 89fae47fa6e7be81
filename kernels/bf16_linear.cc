#include "kernels/bf16_linear.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/amx.h"
#include "kernels/packed_panels.h"

namespace tokvec {
namespace {

constexpr int kRowsPerKernel = 6;     // rows x kPanelsPerKernel panels = 24 f32 accumulators of the 32 registers
constexpr int kPanelsPerKernel = 4;   // 64 outputs

// Every row r < rows of x ([rows, in], row stride ldx) as bf16 into xb (row stride 2·pairs bf16, pre-zeroed).
__attribute__((target("avx512f,avx512bf16,avx512bw,avx512vl"))) void RoundRows(const float* x, int64_t ldx,
                                                                                int64_t rows, int64_t in,
                                                                                uint16_t* xb, int64_t pairs) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * ldx;
    uint16_t* out = xb + r * 2 * pairs;
    for (int64_t i = 0; i < in; i += 16) {
      const int64_t left = std::min<int64_t>(16, in - i);
      const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1);
      const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mask, row + i));
      _mm256_mask_storeu_epi16(out + i, mask, reinterpret_cast<const __m256i&>(h));
    }
  }
}

// y[r, 16n + j] += Σ_k xb[r, pair k] · w[panel n, pair k, j] for r < rows, 16n + j < cols.
template <int kPanels>
__attribute__((target("avx512f,avx512bf16,avx512bw"))) void Kernel(const uint32_t* xb, int64_t pairs,
                                                                    const uint16_t* w, int64_t panel_stride,
                                                                    float* y, int64_t ldy, int rows, int64_t cols) {
  __m512 acc[kRowsPerKernel][kPanels];
  for (int r = 0; r < kRowsPerKernel; ++r) {
    for (int n = 0; n < kPanels; ++n) acc[r][n] = _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < pairs; ++k) {
    __m512bh b[kPanels];
    for (int n = 0; n < kPanels; ++n) b[n] = (__m512bh)_mm512_loadu_si512(w + n * panel_stride + k * 32);
    for (int r = 0; r < kRowsPerKernel; ++r) {
      const __m512bh a = (__m512bh)_mm512_set1_epi32(static_cast<int>(xb[r * pairs + k]));
      for (int n = 0; n < kPanels; ++n) acc[r][n] = _mm512_dpbf16_ps(acc[r][n], a, b[n]);
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int n = 0; n < kPanels && n * 16 < cols; ++n) {
      const int64_t left = std::min<int64_t>(16, cols - n * 16);
      const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1);
      float* p = y + r * ldy + n * 16;
      _mm512_mask_storeu_ps(p, mask, _mm512_add_ps(_mm512_maskz_loadu_ps(mask, p), acc[r][n]));
    }
  }
}

// AMX-BF16 (Sapphire Rapids and later, amx.h): TDPBF16PS multiplies a tile of bf16 activations [16 rows, 16
// pairs] by a tile of bf16 weights [16 pairs, 16 outputs x 2], one panel's layout as PackBf16 writes it (pair k,
// output j, half h), into a 16 x 16 f32 tile. Its sums are f32 in a fixed order per row, so a row's bits depend on
// nothing but the row (not on the tile, the batch or the thread count); they may differ from Kernel's in the last
// bits (another order of f32 additions).
constexpr int kAmxPairs = kAmxGroups;  // pairs per tile step (amx.h)

// y[r, 16n + j] += Σ_k xb[r, pair k]·w[panel n, pair k, j] for r < rows (<= 32), n < kPanels; xb's rows are
// `xpairs` pairs apart (pairs rounded up to kAmxPairs, zero past pairs). Tiles as amx.h says.
template <int kPanels>
__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw"))) void AmxKernel(const uint32_t* xb, int64_t xpairs,
                                                                              int64_t pairs, const uint16_t* w,
                                                                              int64_t panel_stride, float* y,
                                                                              int64_t ldy, int rows, int64_t cols) {
  AmxMemoryBarrier(xb);  // the caller's rows are in memory before the first tile load
  const int64_t stride = xpairs * 4;  // bytes per row of xb
  AmxZeroSums<kPanels>();
  // The last, partial step reads its weights from zero-padded copies (no lambda: clang does not give one the
  // function's target features).
  const int64_t whole = pairs / kAmxPairs * kAmxPairs;
  alignas(64) uint8_t tail[2][kAmxGroups * 64];
  if (whole < pairs) {
    AmxCopyTail<kPanels>(reinterpret_cast<const uint8_t*>(w + whole * 32), panel_stride * 2,
                         static_cast<size_t>((pairs - whole) * 64), tail);
  }
  for (int64_t k = 0; k < pairs; k += kAmxPairs) {
    const bool partial = k == whole;
    _tile_loadd(4, xb + k, stride);
    _tile_loadd(5, xb + 16 * xpairs + k, stride);
    _tile_loadd(6, partial ? static_cast<const void*>(tail[0]) : w + k * 32, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 5, 6);
    if constexpr (kPanels == 2) {
      _tile_loadd(7, partial ? static_cast<const void*>(tail[1]) : w + panel_stride + k * 32, 64);
      _tile_dpbf16ps(2, 4, 7);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) float acc[kAmxRows][32];
  AmxStoreSums<kPanels>(acc);
  for (int r = 0; r < rows; ++r) {
    for (int n = 0; n < kPanels && n * 16 < cols; ++n) {
      const int64_t left = std::min<int64_t>(16, cols - n * 16);
      const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1);
      float* p = y + r * ldy + n * 16;
      _mm512_mask_storeu_ps(p, mask, _mm512_add_ps(_mm512_maskz_loadu_ps(mask, p), _mm512_load_ps(&acc[r][n * 16])));
    }
  }
}

}  // namespace

uint16_t RoundToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

float Bf16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

Bf16PackedWeights PackBf16(const LinearWeights& w) {
  Bf16PackedWeights packed;
  packed.in = w.in_features();
  packed.out = w.out_features();
  packed.pairs = (packed.in + 1) / 2;
  const int64_t panels = PanelCount(packed.out);
  packed.data.assign(static_cast<size_t>(panels * packed.pairs * 32), 0);
  for (int64_t i = 0; i < packed.in; ++i) {
    for (int64_t o = 0; o < packed.out; ++o) {
      const int64_t p = o / kPanelWidth, j = o % kPanelWidth, k = i / 2, h = i % 2;
      packed.data[static_cast<size_t>(((p * packed.pairs + k) * kPanelWidth + j) * 2 + h)] =
          RoundToBf16(WeightAt(w, i, o));
    }
  }
  return packed;
}

void Bf16TileInto(const float* x, int64_t ldx, int64_t rows, const Bf16PackedWeights& w, int64_t col0, int64_t cols,
                  float* y, int64_t ldy, Bf16Kernel kernel) {
  if (rows <= 0 || cols <= 0 || w.pairs == 0) return;
  const bool amx = kernel == Bf16Kernel::kAmx || (kernel == Bf16Kernel::kAuto && AmxBf16Available());
  const int64_t pairs = w.pairs, panel_stride = pairs * 32;
  const int step = amx ? kAmxRows : kRowsPerKernel;
  const int64_t padded_rows = (rows + step - 1) / step * step;
  // AMX reads whole 64-byte steps of each row: its rows are padded to a multiple of kAmxPairs pairs.
  const int64_t xpairs = amx ? (pairs + kAmxPairs - 1) / kAmxPairs * kAmxPairs : pairs;
  thread_local std::vector<uint32_t> xb;  // [padded_rows, xpairs] bf16 pairs; rows past `rows` stay zero
  xb.assign(static_cast<size_t>(padded_rows * xpairs), 0);
  RoundRows(x, ldx, rows, w.in, reinterpret_cast<uint16_t*>(xb.data()), xpairs);
  const int64_t panel0 = col0 / kPanelWidth;
  if (amx) {
    LoadAmxTileConfig();  // per thread; cheap beside a tile of work
    ForEachKernelCall(rows, cols, xpairs * 4, kAmxRows, 2, [&](int64_t r0, int64_t p, int rows_here, int panels_here) {
      const uint16_t* wp = w.data.data() + (panel0 + p) * panel_stride;
      const uint32_t* xr = xb.data() + r0 * xpairs;
      float* yr = y + r0 * ldy + p * kPanelWidth;
      const int64_t left_cols = cols - p * kPanelWidth;
      if (panels_here == 2) {
        AmxKernel<2>(xr, xpairs, pairs, wp, panel_stride, yr, ldy, rows_here, left_cols);
      } else {
        AmxKernel<1>(xr, xpairs, pairs, wp, panel_stride, yr, ldy, rows_here, left_cols);
      }
    });
    return;
  }
  ForEachKernelCall(rows, cols, pairs * 4, kRowsPerKernel, kPanelsPerKernel,
                    [&](int64_t r0, int64_t p, int rows_here, int panels_here) {
    const uint16_t* wp = w.data.data() + (panel0 + p) * panel_stride;
    const uint32_t* xr = xb.data() + r0 * pairs;
    float* yr = y + r0 * ldy + p * kPanelWidth;
    const int64_t left_cols = cols - p * kPanelWidth;
    switch (panels_here) {
      case 4: Kernel<4>(xr, pairs, wp, panel_stride, yr, ldy, rows_here, left_cols); break;
      case 3: Kernel<3>(xr, pairs, wp, panel_stride, yr, ldy, rows_here, left_cols); break;
      case 2: Kernel<2>(xr, pairs, wp, panel_stride, yr, ldy, rows_here, left_cols); break;
      default: Kernel<1>(xr, pairs, wp, panel_stride, yr, ldy, rows_here, left_cols); break;
    }
  });
}

}  // namespace tokvec
