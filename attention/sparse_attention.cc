#include "attention/sparse_attention.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "attention/flash_kernels.h"

namespace tokvec {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Masks one row of a tile: s covers keys [k0, k0 + cols). Entries outside `row` (the query's intervals) or on
// padded keys become -inf. Returns the tile's `valid` width (one past the last visible key, 0 if none).
int64_t MaskRow(const std::vector<KeyInterval>& row, std::span<const uint8_t> padding, int64_t k0, int64_t cols,
                float* s) {
  const int64_t k1 = k0 + cols;
  int64_t valid = 0, visible = 0, cursor = k0;  // cursor: first key not yet decided
  for (const KeyInterval& iv : row) {
    if (iv.end <= k0) continue;
    if (iv.begin >= k1) break;
    const int64_t a = std::max(iv.begin, k0), b = std::min(iv.end, k1);
    std::fill(s + (cursor - k0), s + (a - k0), kNegInf);
    for (int64_t j = a; j < b; ++j) {
      if (!padding.empty() && padding[static_cast<size_t>(j)] != 0) {
        s[j - k0] = kNegInf;
      } else {
        ++visible;
      }
    }
    cursor = b;
    valid = b - k0;
  }
  return visible == 0 ? 0 : valid;
}

}  // namespace

void SparseAttendHead(const SparsePattern& pattern, StridedView q, StridedView k, StridedView v,
                      std::span<const uint8_t> key_padding, float scale, FlashScratch* scratch, float* out,
                      int64_t out_stride, bool portable) {
  const FlashHeadTiles tiles(q, k, v, scratch, portable);
  const int64_t seq_len = q.rows;
  std::vector<KeyInterval> block, tile_spans;                       // the query block's key intervals
  std::vector<std::vector<KeyInterval>> rows_iv(kFlashQueryBlock);  // each row's intervals
  for (int64_t q0 = 0; q0 < seq_len; q0 += kFlashQueryBlock) {
    const int64_t rows = std::min(kFlashQueryBlock, seq_len - q0);
    float* o = out + q0 * out_stride;
    tiles.Start(rows, o, out_stride);
    for (int64_t r = 0; r < rows; ++r) pattern.RowIntervals(q0 + r, &rows_iv[static_cast<size_t>(r)]);
    pattern.BlockIntervals(q0, q0 + rows, &block);
    // Tiles start at multiples of 32 keys (the AVX-512 key panels); aligning may join intervals.
    tile_spans.clear();
    for (KeyInterval iv : block) {
      iv.begin -= iv.begin % kKeyPanel;
      if (!tile_spans.empty() && iv.begin <= tile_spans.back().end) {
        tile_spans.back().end = std::max(tile_spans.back().end, iv.end);
      } else {
        tile_spans.push_back(iv);
      }
    }
    for (const KeyInterval& span_iv : tile_spans) {
      for (int64_t k0 = span_iv.begin; k0 < span_iv.end; k0 += kFlashKeyBlock) {
        const int64_t cols = std::min(kFlashKeyBlock, span_iv.end - k0);
        tiles.Scores(q0, rows, k0, cols, scale);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t valid = MaskRow(rows_iv[static_cast<size_t>(r)], key_padding, k0, cols, tiles.scores_row(r));
          tiles.UpdateRow(r, valid, cols);
        }
        tiles.Context(rows, k0, cols, o, out_stride);
      }
    }
    tiles.Normalize(rows, o, out_stride);
  }
}

}  // namespace tokvec
