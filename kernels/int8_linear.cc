#include "kernels/int8_linear.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/amx.h"
#include "kernels/packed_panels.h"

namespace tokvec {
namespace {

constexpr int kRowsPerKernel = 4;     // rows x kPanelsPerKernel panels = 16 int32 accumulators (6 rows: GCC 12 adds
                                      // register copies around vpdpbusd; 4 took ~15% less CPU in `bench layer`)
constexpr int kPanelsPerKernel = 4;   // 64 outputs

// Row r < rows of x ([rows, in], row stride ldx) -> xq row r (row stride 4·quads bytes, pre-zeroed):
// round(x / t_r) + 128, with t_r = max |x[r, :]| / 127 stored in row_scales[r] (0 for an all-zero row).
__attribute__((target("avx512f,avx512bw,avx512vl"))) void QuantizeRows(const float* x, int64_t ldx, int64_t rows,
                                                                        int64_t in, uint8_t* xq, int64_t quads,
                                                                        float* row_scales) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * ldx;
    __m512 max_abs = _mm512_setzero_ps();
    for (int64_t i = 0; i < in; i += 16) {
      const __mmask16 mask = static_cast<__mmask16>((1u << std::min<int64_t>(16, in - i)) - 1);
      max_abs = _mm512_max_ps(max_abs, _mm512_abs_ps(_mm512_maskz_loadu_ps(mask, row + i)));
    }
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, max_abs);
    const float largest = *std::max_element(lanes, lanes + 16);
    row_scales[r] = largest / 127.0f;
    const __m512 inverse = _mm512_set1_ps(largest > 0.0f ? 127.0f / largest : 0.0f);
    uint8_t* out = xq + r * 4 * quads;
    for (int64_t i = 0; i < in; i += 16) {
      const __mmask16 mask = static_cast<__mmask16>((1u << std::min<int64_t>(16, in - i)) - 1);
      __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(mask, row + i), inverse));  // nearest
      q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(-127)), _mm512_set1_epi32(127));
      q = _mm512_add_epi32(q, _mm512_set1_epi32(128));
      _mm_mask_storeu_epi8(out + i, mask, _mm512_cvtepi32_epi8(q));
    }
  }
}

// y[r, 16n + j] += t_r·s_j·(offset_j + Σ_k xq[r, quad k]·w[panel n, quad k, j]) for r < rows, 16n + j < cols.
template <int kPanels>
__attribute__((target("avx512f,avx512vnni,avx512bw"))) void Kernel(const uint8_t* xq, int64_t quads,
                                                                    const int8_t* w, int64_t panel_stride,
                                                                    const int32_t* offsets, const float* scales,
                                                                    const float* row_scales, float* y, int64_t ldy,
                                                                    int rows, int64_t cols) {
  __m512i acc[kRowsPerKernel][kPanels];
  for (int n = 0; n < kPanels; ++n) {
    const __m512i start = _mm512_loadu_si512(offsets + n * 16);
    for (int r = 0; r < kRowsPerKernel; ++r) acc[r][n] = start;
  }
  for (int64_t k = 0; k < quads; ++k) {
    __m512i b[kPanels];
    for (int n = 0; n < kPanels; ++n) b[n] = _mm512_loadu_si512(w + n * panel_stride + k * 64);
    for (int r = 0; r < kRowsPerKernel; ++r) {
      int32_t four;
      std::memcpy(&four, xq + (r * quads + k) * 4, sizeof(four));
      const __m512i a = _mm512_set1_epi32(four);
      for (int n = 0; n < kPanels; ++n) acc[r][n] = _mm512_dpbusd_epi32(acc[r][n], a, b[n]);
    }
  }
  for (int r = 0; r < rows; ++r) {
    const __m512 row_scale = _mm512_set1_ps(row_scales[r]);
    for (int n = 0; n < kPanels && n * 16 < cols; ++n) {
      const int64_t left = std::min<int64_t>(16, cols - n * 16);
      const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1);
      const __m512 scale = _mm512_mul_ps(_mm512_loadu_ps(scales + n * 16), row_scale);
      float* p = y + r * ldy + n * 16;
      _mm512_mask_storeu_ps(p, mask, _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[r][n]), scale,
                                                     _mm512_maskz_loadu_ps(mask, p)));
    }
  }
}

// AMX (Sapphire Rapids and later): the same sums as Kernel, 16 x 16 int32 tiles at a time. TDPBUSD multiplies a
// tile of u8 activations [16 rows, 16 quads] by a tile of s8 weights [16 quads, 16 outputs x 4 bytes], which is
// one panel's layout as PackInt8 writes it (quad k, output j, byte b), so panels are loaded as they are. Integer
// sums are exact, so the accumulators, and the float epilogue after them, are Kernel's to the bit.
constexpr int kAmxQuads = kAmxGroups;  // quads per tile step (amx.h)

// y[r, 16n + j] += t_r·s_j·(offset_j + Σ_k xq[r, quad k]·w[panel n, quad k, j]) for r < rows (<= 32), n < kPanels.
// xq's rows are `xquads` quads apart (quads rounded up to kAmxQuads, zero past quads). Tiles as amx.h says.
template <int kPanels>
__attribute__((target("amx-tile,amx-int8,avx512f,avx512bw"))) void AmxKernel(
    const uint8_t* xq, int64_t xquads, int64_t quads, const int8_t* w, int64_t panel_stride, const int32_t* offsets,
    const float* scales, const float* row_scales, float* y, int64_t ldy, int rows, int64_t cols) {
  AmxMemoryBarrier(xq);  // the caller's rows are in memory before the first tile load
  const int64_t stride = xquads * 4;  // bytes per row of xq
  AmxZeroSums<kPanels>();
  // The last, partial step reads its weights from zero-padded copies (no lambda: clang does not give one the
  // function's target features).
  const int64_t whole = quads / kAmxQuads * kAmxQuads;
  alignas(64) uint8_t tail[2][kAmxGroups * 64];
  if (whole < quads) {
    AmxCopyTail<kPanels>(reinterpret_cast<const uint8_t*>(w + whole * 64), panel_stride,
                         static_cast<size_t>((quads - whole) * 64), tail);
  }
  for (int64_t k = 0; k < quads; k += kAmxQuads) {
    const bool partial = k == whole;
    _tile_loadd(4, xq + k * 4, stride);
    _tile_loadd(5, xq + 16 * stride + k * 4, stride);
    _tile_loadd(6, partial ? static_cast<const void*>(tail[0]) : w + k * 64, 64);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 5, 6);
    if constexpr (kPanels == 2) {
      _tile_loadd(7, partial ? static_cast<const void*>(tail[1]) : w + panel_stride + k * 64, 64);
      _tile_dpbusd(2, 4, 7);
      _tile_dpbusd(3, 5, 7);
    }
  }
  alignas(64) int32_t acc[kAmxRows][32];
  AmxStoreSums<kPanels>(acc);
  for (int r = 0; r < rows; ++r) {
    const __m512 row_scale = _mm512_set1_ps(row_scales[r]);
    for (int n = 0; n < kPanels && n * 16 < cols; ++n) {
      const int64_t left = std::min<int64_t>(16, cols - n * 16);
      const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1);
      const __m512i sum = _mm512_add_epi32(_mm512_load_si512(&acc[r][n * 16]), _mm512_loadu_si512(offsets + n * 16));
      const __m512 scale = _mm512_mul_ps(_mm512_loadu_ps(scales + n * 16), row_scale);
      float* p = y + r * ldy + n * 16;
      _mm512_mask_storeu_ps(p, mask, _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), scale, _mm512_maskz_loadu_ps(mask, p)));
    }
  }
}

}  // namespace

Int8PackedWeights PackInt8(const LinearWeights& w) {
  Int8PackedWeights packed;
  packed.in = w.in_features();
  packed.out = w.out_features();
  packed.quads = (packed.in + 3) / 4;
  const int64_t panels = PanelCount(packed.out);
  packed.data.assign(static_cast<size_t>(panels * packed.quads * 64), 0);
  packed.scales.assign(static_cast<size_t>(panels * kPanelWidth), 0.0f);
  packed.offsets.assign(static_cast<size_t>(panels * kPanelWidth), 0);
  for (int64_t o = 0; o < packed.out; ++o) {
    float largest = 0.0f;
    for (int64_t i = 0; i < packed.in; ++i) largest = std::max(largest, std::fabs(WeightAt(w, i, o)));
    const float scale = largest / 127.0f;
    packed.scales[static_cast<size_t>(o)] = scale;
    const int64_t p = o / kPanelWidth, j = o % kPanelWidth;
    int32_t sum = 0;
    for (int64_t i = 0; i < packed.in; ++i) {
      const float q = largest > 0.0f ? std::nearbyint(WeightAt(w, i, o) / scale) : 0.0f;
      const int8_t value = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
      packed.data[static_cast<size_t>(((p * packed.quads + i / 4) * kPanelWidth + j) * 4 + i % 4)] = value;
      sum += value;
    }
    packed.offsets[static_cast<size_t>(o)] = -128 * sum;
  }
  return packed;
}

void Int8TileInto(const float* x, int64_t ldx, int64_t rows, const Int8PackedWeights& w, int64_t col0, int64_t cols,
                  float* y, int64_t ldy, Int8Kernel kernel) {
  if (rows <= 0 || cols <= 0 || w.quads == 0) return;
  const bool amx = kernel == Int8Kernel::kAmx || (kernel == Int8Kernel::kAuto && AmxInt8Available());
  const int64_t quads = w.quads, panel_stride = quads * 64;
  const int step = amx ? kAmxRows : kRowsPerKernel;
  const int64_t padded_rows = (rows + step - 1) / step * step;
  // AMX reads whole 64-byte steps of each row: its rows are padded to a multiple of kAmxQuads quads.
  const int64_t xquads = amx ? (quads + kAmxQuads - 1) / kAmxQuads * kAmxQuads : quads;
  thread_local std::vector<uint8_t> xq;        // [padded_rows, 4·xquads]; padding bytes meet zero weights
  thread_local std::vector<float> row_scales;  // [padded_rows]
  xq.assign(static_cast<size_t>(padded_rows * xquads * 4), 0);
  row_scales.assign(static_cast<size_t>(padded_rows), 0.0f);
  QuantizeRows(x, ldx, rows, w.in, xq.data(), xquads, row_scales.data());
  const int64_t panel0 = col0 / kPanelWidth;
  if (amx) {
    LoadAmxTileConfig();  // per thread; cheap beside a tile of work
    ForEachKernelCall(rows, cols, xquads * 4, kAmxRows, 2, [&](int64_t r0, int64_t p, int rows_here, int panels_here) {
      const int64_t at = panel0 + p;
      const uint8_t* xr = xq.data() + r0 * xquads * 4;
      float* yr = y + r0 * ldy + p * kPanelWidth;
      const int64_t left_cols = cols - p * kPanelWidth;
      const int8_t* wp = w.data.data() + at * panel_stride;
      const int32_t* offsets = w.offsets.data() + at * kPanelWidth;
      const float* scales = w.scales.data() + at * kPanelWidth;
      if (panels_here == 2) {
        AmxKernel<2>(xr, xquads, quads, wp, panel_stride, offsets, scales, row_scales.data() + r0, yr, ldy, rows_here,
                     left_cols);
      } else {
        AmxKernel<1>(xr, xquads, quads, wp, panel_stride, offsets, scales, row_scales.data() + r0, yr, ldy, rows_here,
                     left_cols);
      }
    });
    return;
  }
  ForEachKernelCall(rows, cols, quads * 4, kRowsPerKernel, kPanelsPerKernel,
                    [&](int64_t r0, int64_t p, int rows_here, int panels_here) {
    const int8_t* wp = w.data.data() + (panel0 + p) * panel_stride;
    const int32_t* offsets = w.offsets.data() + (panel0 + p) * kPanelWidth;
    const float* scales = w.scales.data() + (panel0 + p) * kPanelWidth;
    const uint8_t* xr = xq.data() + r0 * quads * 4;
    const float* ts = row_scales.data() + r0;
    float* yr = y + r0 * ldy + p * kPanelWidth;
    const int64_t left_cols = cols - p * kPanelWidth;
    switch (panels_here) {
      case 4: Kernel<4>(xr, quads, wp, panel_stride, offsets, scales, ts, yr, ldy, rows_here, left_cols); break;
      case 3: Kernel<3>(xr, quads, wp, panel_stride, offsets, scales, ts, yr, ldy, rows_here, left_cols); break;
      case 2: Kernel<2>(xr, quads, wp, panel_stride, offsets, scales, ts, yr, ldy, rows_here, left_cols); break;
      default: Kernel<1>(xr, quads, wp, panel_stride, offsets, scales, ts, yr, ldy, rows_here, left_cols); break;
    }
  });
}

}  // namespace tokvec
