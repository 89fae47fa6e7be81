// Scaled dot-product attention for training (declared in training/kernels.h): AttentionForward and
// AttentionBackward over GPT-2's fused qkv, full or sparse (a SparsePattern), causal or bidirectional, a block of
// queries at a time with O(T) scratch per head. The kernels of the other attention kinds (Linformer, kernel
// attention) are in training/attention_kind_kernels.cc.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "training/dropout_mask.h"
#include "training/kernels.h"
#include "training/vector_math.h"

namespace tokvec::training {
namespace {

// Queries per block of the attention kernels. A block's scores against the keys it sees, [kQueryBlock, ≤ T] floats,
// are the scratch: O(T) memory per head, never [T, T] (FlashAttention-2's recompute, with one block spanning every
// visible key so the softmax needs no online rescaling). Fixed, so every product has the same shape for any thread
// count.
constexpr int64_t kQueryBlock = 64;

// One head of one sequence: strided views into the fused qkv rows and the [N, C] rows of out/dout.
struct HeadView {
  const float* q;  // [T, Dh], row stride 3C
  const float* k;
  const float* v;
  int64_t qkv_stride;  // 3C
  int64_t Dh;
  int64_t keys;  // visible keys of this sequence (key_lengths[b], or T)
  bool causal;
  float scale;
  const SparsePattern* pattern;  // null: every key (causal: up to the query)
};

// The keys a block of queries sees, as spans of key positions packed side by side into the columns of the block's
// score matrix: span s occupies columns [column[s], column[s] + length). Full attention is one span [0, visible);
// a sparse pattern gives the union of its rows' intervals. Each query row then keeps the column ranges of its own
// intervals (a subset of the block's spans) and its other columns are zero.
struct BlockKeys {
  std::vector<KeyInterval> spans;
  std::vector<int64_t> column;
  int64_t width = 0;
  std::vector<KeyInterval> row_keys;  // one row's intervals (scratch)
  struct Range {
    int64_t column, key, length;  // columns [column, column + length) are keys [key, key + length)
  };
  std::vector<Range> ranges;        // one row's visible columns
};

// Clips intervals to keys [0, limit), dropping empty ones.
void ClipIntervals(std::vector<KeyInterval>* intervals, int64_t limit) {
  std::vector<KeyInterval>& v = *intervals;
  size_t n = 0;
  for (const KeyInterval& iv : v) {
    const int64_t end = std::min(iv.end, limit);
    if (iv.begin < end) v[n++] = {iv.begin, end};
  }
  v.resize(n);
}

// The spans of queries [i0, i0 + rows).
void BlockSpans(const HeadView& h, int64_t i0, int64_t rows, BlockKeys* bk) {
  if (h.pattern == nullptr) {
    const int64_t last = i0 + rows - 1;
    bk->spans.assign(1, {0, h.causal ? std::min(last + 1, h.keys) : h.keys});
  } else {
    h.pattern->BlockIntervals(i0, i0 + rows, &bk->spans);
  }
  ClipIntervals(&bk->spans, h.keys);
  bk->column.resize(bk->spans.size());
  bk->width = 0;
  for (size_t s = 0; s < bk->spans.size(); ++s) {
    bk->column[s] = bk->width;
    bk->width += bk->spans[s].end - bk->spans[s].begin;
  }
}

// bk->ranges = the columns query i sees (empty when it sees no key).
void RowRanges(const HeadView& h, int64_t i, BlockKeys* bk) {
  bk->ranges.clear();
  if (h.pattern == nullptr) {
    const int64_t end = h.causal ? std::min(i + 1, h.keys) : h.keys;
    if (end > 0) bk->ranges.push_back({0, 0, end});
    return;
  }
  h.pattern->RowIntervals(i, &bk->row_keys);
  ClipIntervals(&bk->row_keys, h.keys);
  size_t s = 0;
  for (const KeyInterval& iv : bk->row_keys) {  // both sorted; each row interval lies inside one block span
    while (bk->spans[s].end <= iv.begin) ++s;
    bk->ranges.push_back({bk->column[s] + iv.begin - bk->spans[s].begin, iv.begin, iv.end - iv.begin});
  }
}

// Zeroes the columns of row [0, width) outside ranges.
void ZeroOutsideRanges(const std::vector<BlockKeys::Range>& ranges, float* row, int64_t width) {
  int64_t next = 0;
  for (const BlockKeys::Range& r : ranges) {
    std::fill(row + next, row + r.column, 0.0f);
    next = r.column + r.length;
  }
  std::fill(row + next, row + width, 0.0f);
}

// s [rows, width] = scale · Q[i0, i0 + rows) · K[span]ᵀ for each span, side by side.
void ScaledScores(const HeadView& h, const BlockKeys& bk, int64_t i0, int64_t rows, float* s) {
  for (size_t k = 0; k < bk.spans.size(); ++k) {
    const KeyInterval span = bk.spans[k];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows),
                static_cast<blasint>(span.end - span.begin), static_cast<blasint>(h.Dh), h.scale,
                h.q + i0 * h.qkv_stride, static_cast<blasint>(h.qkv_stride), h.k + span.begin * h.qkv_stride,
                static_cast<blasint>(h.qkv_stride), 0.0f, s + bk.column[k], static_cast<blasint>(bk.width));
  }
}

// out [rows, n] (row stride ldo) = Σ_spans M[:, span's columns] · X[span] with M [rows, width] and X rows of stride
// ldx, n columns. Transposed (`trans`): out [span rows, n] += M[:, span's columns]ᵀ · X [rows, n] for each span
// (out indexed by key position).
void SpanProducts(const BlockKeys& bk, const float* m, int64_t rows, const float* x, int64_t ldx, int64_t n,
                  float* out, int64_t ldo) {
  for (size_t k = 0; k < bk.spans.size(); ++k) {
    const KeyInterval span = bk.spans[k];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows), static_cast<blasint>(n),
                static_cast<blasint>(span.end - span.begin), 1.0f, m + bk.column[k], static_cast<blasint>(bk.width),
                x + span.begin * ldx, static_cast<blasint>(ldx), k == 0 ? 0.0f : 1.0f, out,
                static_cast<blasint>(ldo));
  }
}
void SpanProductsTransposed(const BlockKeys& bk, const float* m, int64_t rows, const float* x, int64_t ldx,
                            int64_t n, float* out, int64_t ldo) {
  for (size_t k = 0; k < bk.spans.size(); ++k) {
    const KeyInterval span = bk.spans[k];
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(span.end - span.begin),
                static_cast<blasint>(n), static_cast<blasint>(rows), 1.0f, m + bk.column[k],
                static_cast<blasint>(bk.width), x, static_cast<blasint>(ldx), 1.0f, out + span.begin * ldo,
                static_cast<blasint>(ldo));
  }
}

// The dropout multiplier m_ij of weight (i, j) of head bh: 0 or 1/(1 - p).
float DropoutMultiplier(float dropout, float keep_scale, uint64_t seed, int64_t bh, int64_t T, int64_t i,
                        int64_t j) {
  const uint64_t index = static_cast<uint64_t>((bh * T + i) * T + j);
  return InlineDropoutUniform(seed, index) >= dropout ? keep_scale : 0.0f;
}

HeadView MakeHeadView(const float* qkv, int64_t b, int64_t h, int64_t T, int64_t C, int64_t H, bool causal,
                      const int32_t* key_lengths, const SparsePattern* pattern) {
  const int64_t Dh = C / H, C3 = 3 * C;
  const float* base = qkv + b * T * C3;  // [T, 3C]
  return HeadView{base + h * Dh,
                  base + C + h * Dh,
                  base + 2 * C + h * Dh,
                  C3,
                  Dh,
                  key_lengths != nullptr ? key_lengths[b] : T,
                  causal,
                  1.0f / std::sqrt(static_cast<float>(Dh)),
                  pattern};
}

}  // namespace

void AttentionForward(float* out, float* lse, const float* qkv, int64_t B, int64_t T, int64_t C, int64_t H,
                      int threads, float dropout, uint64_t dropout_seed, bool causal, const int32_t* key_lengths,
                      const SparsePattern* pattern) {
  UseSingleThreadedBlas();
  const float keep_scale = 1.0f / (1.0f - dropout);
  const int64_t Dh = C / H, C3 = 3 * C;
  ParallelFor(B * H, threads, [&](int64_t bh) {
    const int64_t b = bh / H;
    const HeadView head = MakeHeadView(qkv, b, bh % H, T, C, H, causal, key_lengths, pattern);
    BlockKeys bk;
    std::vector<float> p;  // [rows, width]: a block's weights
    for (int64_t i0 = 0; i0 < T; i0 += kQueryBlock) {
      const int64_t rows = std::min(kQueryBlock, T - i0);
      float* o = out + (b * T + i0) * C + (bh % H) * Dh;  // [rows, Dh], row stride C
      BlockSpans(head, i0, rows, &bk);
      p.resize(static_cast<size_t>(rows * bk.width));
      if (bk.width > 0) ScaledScores(head, bk, i0, rows, p.data());
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        float* row = p.data() + r * bk.width;  // [width]
        RowRanges(head, i, &bk);
        if (bk.ranges.empty()) {  // no visible key: zero context, lse -inf
          std::fill(row, row + bk.width, 0.0f);
          lse[bh * T + i] = -std::numeric_limits<float>::infinity();
          continue;
        }
        float max = -std::numeric_limits<float>::infinity();
        for (const BlockKeys::Range& g : bk.ranges) max = std::max(max, MaxOf(row + g.column, g.length));
        double total = 0.0;
        for (const BlockKeys::Range& g : bk.ranges) {
          ExpShiftedInPlace(row + g.column, g.length, max);
          total += SumAsDouble(row + g.column, g.length);
        }
        const float sum = static_cast<float>(total);
        const float inv = 1.0f / sum;
        for (const BlockKeys::Range& g : bk.ranges) {
          float* w = row + g.column;
          for (int64_t c = 0; c < g.length; ++c) w[c] *= inv;
          if (dropout > 0.0f) {
            for (int64_t c = 0; c < g.length; ++c) {
              w[c] *= DropoutMultiplier(dropout, keep_scale, dropout_seed, bh, T, i, g.key + c);
            }
          }
        }
        ZeroOutsideRanges(bk.ranges, row, bk.width);
        lse[bh * T + i] = max + std::log(sum);
      }
      if (bk.width == 0) {
        for (int64_t r = 0; r < rows; ++r) std::fill(o + r * C, o + r * C + Dh, 0.0f);
        continue;
      }
      // o [rows, Dh] = P [rows, width] · V[spans]
      SpanProducts(bk, p.data(), rows, head.v, C3, Dh, o, C);
    }
  });
}

void AttentionBackward(float* dqkv, const float* dout, const float* out, const float* lse, const float* qkv,
                       int64_t B, int64_t T, int64_t C, int64_t H, int threads, float dropout,
                       uint64_t dropout_seed, bool causal, const int32_t* key_lengths, const SparsePattern* pattern) {
  UseSingleThreadedBlas();
  const float keep_scale = 1.0f / (1.0f - dropout);
  const int64_t Dh = C / H, C3 = 3 * C;
  ParallelFor(B * H, threads, [&](int64_t bh) {
    const int64_t b = bh / H, h = bh % H;
    const HeadView head = MakeHeadView(qkv, b, h, T, C, H, causal, key_lengths, pattern);
    const float scale = head.scale;
    float* dbase = dqkv + b * T * C3;  // [T, 3C]
    float* dq = dbase + h * Dh;        // [T, Dh] each, row stride 3C
    float* dk = dbase + C + h * Dh;
    float* dv = dbase + 2 * C + h * Dh;
    for (int64_t t = 0; t < T; ++t) {
      for (float* d : {dq, dk, dv}) std::fill(d + t * C3, d + t * C3 + Dh, 0.0f);
    }
    BlockKeys bk;
    std::vector<float> p;   // [rows, width]: weights, then weights · mask
    std::vector<float> ds;  // [rows, width]: do·vᵀ, then dS
    for (int64_t i0 = 0; i0 < T; i0 += kQueryBlock) {
      const int64_t rows = std::min(kQueryBlock, T - i0);
      BlockSpans(head, i0, rows, &bk);
      if (bk.width == 0) continue;
      const float* dout_block = dout + (b * T + i0) * C + h * Dh;  // [rows, Dh], row stride C
      const float* out_block = out + (b * T + i0) * C + h * Dh;
      p.resize(static_cast<size_t>(rows * bk.width));
      ds.resize(static_cast<size_t>(rows * bk.width));
      ScaledScores(head, bk, i0, rows, p.data());
      // ds [rows, width] = dO_block · V[spans]ᵀ
      for (size_t k = 0; k < bk.spans.size(); ++k) {
        const KeyInterval span = bk.spans[k];
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows),
                    static_cast<blasint>(span.end - span.begin), static_cast<blasint>(Dh), 1.0f, dout_block,
                    static_cast<blasint>(C), head.v + span.begin * C3, static_cast<blasint>(C3), 0.0f,
                    ds.data() + bk.column[k], static_cast<blasint>(bk.width));
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        float* p_row = p.data() + r * bk.width;
        float* ds_row = ds.data() + r * bk.width;
        RowRanges(head, i, &bk);
        const float* do_i = dout_block + r * C;  // [Dh]
        const float* o_i = out_block + r * C;    // [Dh]
        float delta = 0.0f;                      // do_i · o_i = Σ_j p_ij·m_ij·(do_i · v_j)
        for (int64_t d = 0; d < Dh; ++d) delta += do_i[d] * o_i[d];
        const float row_lse = lse[bh * T + i];
        for (const BlockKeys::Range& g : bk.ranges) {
          float* pw = p_row + g.column;
          float* dw = ds_row + g.column;
          ExpShiftedInPlace(pw, g.length, row_lse);  // p_ij
          if (dropout > 0.0f) {
            for (int64_t c = 0; c < g.length; ++c) {
              const float m = DropoutMultiplier(dropout, keep_scale, dropout_seed, bh, T, i, g.key + c);
              dw[c] = pw[c] * (m * dw[c] - delta) * scale;
              pw[c] *= m;
            }
          } else {
            for (int64_t c = 0; c < g.length; ++c) dw[c] = pw[c] * (dw[c] - delta) * scale;
          }
        }
        ZeroOutsideRanges(bk.ranges, p_row, bk.width);
        ZeroOutsideRanges(bk.ranges, ds_row, bk.width);
      }
      // dq_block [rows, Dh] = dS · K[spans];  dk[spans] += dSᵀ · Q_block;  dv[spans] += (P∘M)ᵀ · dO_block
      SpanProducts(bk, ds.data(), rows, head.k, C3, Dh, dq + i0 * C3, C3);
      SpanProductsTransposed(bk, ds.data(), rows, head.q + i0 * C3, C3, Dh, dk, C3);
      SpanProductsTransposed(bk, p.data(), rows, dout_block, C, Dh, dv, C3);
    }
  });
}

}  // namespace tokvec::training
