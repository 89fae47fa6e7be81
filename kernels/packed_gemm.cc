#include "kernels/packed_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>

#include "kernels/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tokvec {
namespace {

// Rows of x run against each panel in turn (a multiple of kPackedRows): the block's inputs (144 rows x up to 1024
// features, 576 KB) stay in L2 while every panel of the column range runs against them.
constexpr int64_t kRowBlock = 144;
// Inputs up to this many features run each panel through every depth block in one pass over the panels; deeper
// ones (3072 -> 768) a depth block at a time (144 x 256 of x per pass).
constexpr int64_t kWholeDepthMax = 1024;

#if defined(__x86_64__)

// y (12 rows, row stride ldy; only the first `rows` rows and `cols` <= 32 columns exist) += x · panel over
// `depth` k, x read in place (row stride ldx; rows past `rows` read the last row again and are not stored). Every
// row runs the same FMA chain: the row count only decides which rows are loaded and stored. Reading x in place
// (12 row pointers, one broadcast each per k) replaced a k-major copy of each 144-row block: that copy was ~4% of
// a 2-thread BERT embed profile; the four GPT-2 shapes, 1,024 rows, 1 thread, three interleaved runs of a
// standalone copy of both: 238-242 -> 248-250 GFLOP/s.
__attribute__((target("avx512f"))) void MicroKernel(const float* x, int64_t ldx, const float* panel, int64_t depth,
                                                    float* y, int64_t ldy, int64_t rows, int64_t cols) {
  const __mmask16 low = cols >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << cols) - 1u);
  const __mmask16 high = cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : static_cast<__mmask16>((1u << (cols - 16)) - 1u);
  const float* a[kPackedRows];
#pragma GCC unroll 12
  for (int r = 0; r < kPackedRows; ++r) a[r] = x + (r < rows ? r : rows - 1) * ldx;
  __m512 acc[kPackedRows][2];
#pragma GCC unroll 12
  for (int r = 0; r < kPackedRows; ++r) {
    if (r < rows) {
      acc[r][0] = _mm512_maskz_loadu_ps(low, y + r * ldy);
      acc[r][1] = _mm512_maskz_loadu_ps(high, y + r * ldy + 16);
    } else {
      acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    }
  }
  for (int64_t k = 0; k < depth; ++k) {
    const __m512 b0 = _mm512_load_ps(panel + k * kPackedColumns);
    const __m512 b1 = _mm512_load_ps(panel + k * kPackedColumns + 16);
#pragma GCC unroll 12
    for (int r = 0; r < kPackedRows; ++r) {
      const __m512 ar = _mm512_set1_ps(a[r][k]);
      acc[r][0] = _mm512_fmadd_ps(ar, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(ar, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < kPackedRows; ++r) {
    if (r < rows) {
      _mm512_mask_storeu_ps(y + r * ldy, low, acc[r][0]);
      _mm512_mask_storeu_ps(y + r * ldy + 16, high, acc[r][1]);
    }
  }
}

#else  // not x86-64: never selected (PackedGemmAvailable() is false).

void MicroKernel(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, int64_t) {}

#endif

}  // namespace

bool PackedGemmAvailable() {
  static const bool available = [] {
    const char* forced = std::getenv("TOKVEC_GEMM");
    if (forced != nullptr && std::strcmp(forced, "openblas") == 0) return false;
#if defined(__x86_64__)
    return Avx512Available();
#else
    return false;
#endif
  }();
  return available;
}

void PackedWeights::AlignedDelete::operator()(float* p) const { ::operator delete[](p, std::align_val_t(64)); }

PackedWeights::PackedWeights(int64_t in, int64_t out)
    : in_(in),
      out_(out),
      panels_((out + kPackedColumns - 1) / kPackedColumns),
      data_(new (std::align_val_t(64)) float[static_cast<size_t>(std::max<int64_t>(1, in * panels_ * kPackedColumns))]) {}

std::unique_ptr<const PackedWeights> PackedWeights::Pack(const LinearWeights& w) {
  const int64_t in = w.in_features(), out = w.out_features(), ld = w.ld();
  std::unique_ptr<PackedWeights> packed(new PackedWeights(in, out));
  const bool out_in = w.layout == WeightLayout::kOutIn;
  float* dst = packed->data_.get();
  for (int64_t k0 = 0; k0 < in; k0 += kPackedDepth) {
    const int64_t depth = std::min(kPackedDepth, in - k0);
    for (int64_t p = 0; p < packed->panels_; ++p) {
      float* panel = dst + k0 * packed->panels_ * kPackedColumns + p * depth * kPackedColumns;  // [depth][32]
      for (int64_t j = 0; j < kPackedColumns; ++j) {
        const int64_t c = p * kPackedColumns + j;
        for (int64_t k = 0; k < depth; ++k) {
          float v = 0.0f;
          if (c < out) v = out_in ? w.weight.data[c * ld + k0 + k] : w.weight.data[(k0 + k) * ld + c];
          panel[k * kPackedColumns + j] = v;
        }
      }
    }
  }
  return packed;
}

void PackedWeights::MultiplyAdd(const float* x, int64_t ldx, int64_t rows, int64_t col0, int64_t cols, float* y,
                                int64_t ldy, std::optional<Activation> activation) const {
  if (rows <= 0 || cols <= 0 || in_ == 0) return;
  const int64_t first_panel = col0 / kPackedColumns;
  const int64_t last_panel = (col0 + cols + kPackedColumns - 1) / kPackedColumns;  // exclusive
  // Depth blocks per pass over the panels: all of them for inputs up to kWholeDepthMax, so each panel runs through
  // every depth block while its y tile (144 x 32 floats) stays in L1; one at a time for deeper inputs. Across all
  // panels block by block, a wide output's y rows (144 x 3072 floats: 1.7 MB) left L2 between the depth blocks and
  // every micro-kernel call began by waiting for its tile: the 768 -> 2304 and 768 -> 3072 products ran at 68-76%
  // of the FMA peak against 83-92% for 768 -> 768. Either way every y element gets the same FMA chain in k order
  // (depth blocks in order), so the bits do not depend on it.
  const int64_t blocks = (in_ + kPackedDepth - 1) / kPackedDepth;
  const int64_t per_pass = in_ <= kWholeDepthMax ? blocks : 1;
  for (int64_t r0 = 0; r0 < rows; r0 += kRowBlock) {
    const int64_t block_rows = std::min(kRowBlock, rows - r0);
    const int64_t groups = (block_rows + kPackedRows - 1) / kPackedRows;
    for (int64_t first = 0; first < blocks; first += per_pass) {
      for (int64_t p = first_panel; p < last_panel; ++p) {
        const int64_t c = p * kPackedColumns - col0, width = std::min(kPackedColumns, cols - c);
        for (int64_t b = first; b < first + per_pass; ++b) {
          const int64_t k0 = b * kPackedDepth, depth = std::min(kPackedDepth, in_ - k0);
          const float* panel = data_.get() + k0 * panels_ * kPackedColumns + p * depth * kPackedColumns;
          const bool last = b == blocks - 1;
          for (int64_t g = 0; g < groups; ++g) {
            const int64_t row = r0 + g * kPackedRows, group_rows = std::min(kPackedRows, block_rows - g * kPackedRows);
            MicroKernel(x + row * ldx + k0, ldx, panel, depth, y + row * ldy + c, ldy, group_rows, width);
            if (last && activation) {  // the tile's sums are complete
              for (int64_t r = 0; r < group_rows; ++r) {
                ApplyActivation(*activation, std::span<float>(y + (row + r) * ldy + c, static_cast<size_t>(width)));
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace tokvec
