#include "attention/linformer.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "kernels/ops.h"

namespace tokvec {
namespace {

constexpr int64_t kQueryChunk = 256;

// The first t columns of p [K, N] as a strided view: p itself (row stride N) without padding, else a copy
// [K, t] in *dst with the padded columns zeroed.
StridedView ProjectionColumns(MatrixView p, int64_t t, std::span<const uint8_t> padding, std::vector<float>* dst) {
  const int64_t rank = p.rows;
  if (padding.empty()) return {p.data, rank, t, p.cols};
  dst->resize(static_cast<size_t>(rank * t));
  for (int64_t r = 0; r < rank; ++r) {
    float* row = dst->data() + r * t;
    std::copy_n(p.data + r * p.cols, t, row);
    if (padding.empty()) continue;
    for (int64_t j = 0; j < t; ++j) {
      if (padding[static_cast<size_t>(j)] != 0) row[j] = 0.0f;
    }
  }
  return {dst->data(), rank, t, t};
}

}  // namespace

void LinformerAttendHead(MatrixView e, MatrixView f, StridedView q, StridedView k, StridedView v,
                         std::span<const uint8_t> key_padding, float scale, LinformerScratch* s, float* out,
                         int64_t out_stride, float* weights) {
  UseSingleThreadedBlas();
  const int64_t t = q.rows, dh = q.cols, dv = v.cols, rank = e.rows;
  const StridedView e_t = ProjectionColumns(e, t, key_padding, &s->e);  // [K, T]
  const StridedView f_t = ProjectionColumns(f, t, key_padding, &s->f);
  s->keys.resize(static_cast<size_t>(rank * dh));
  s->values.resize(static_cast<size_t>(rank * dv));
  // k' = E_T·k [K, Dh], v' = F_T·v [K, Dv]
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rank), static_cast<blasint>(dh),
              static_cast<blasint>(t), 1.0f, e_t.data, static_cast<blasint>(e_t.stride), k.data,
              static_cast<blasint>(k.stride), 0.0f, s->keys.data(), static_cast<blasint>(dh));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rank), static_cast<blasint>(dv),
              static_cast<blasint>(t), 1.0f, f_t.data, static_cast<blasint>(f_t.stride), v.data,
              static_cast<blasint>(v.stride), 0.0f, s->values.data(), static_cast<blasint>(dv));
  s->scores.resize(static_cast<size_t>(kQueryChunk * rank));
  float* p = s->scores.data();
  for (int64_t r0 = 0; r0 < t; r0 += kQueryChunk) {
    const int64_t n = std::min(kQueryChunk, t - r0);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(n), static_cast<blasint>(rank),
                static_cast<blasint>(dh), scale, q.data + r0 * q.stride, static_cast<blasint>(q.stride),
                s->keys.data(), static_cast<blasint>(dh), 0.0f, p, static_cast<blasint>(rank));
    for (int64_t r = 0; r < n; ++r) {
      float* row = p + r * rank;
      const float mx = *std::max_element(row, row + rank);
      float sum = 0.0f;
      for (int64_t j = 0; j < rank; ++j) {
        row[j] = std::exp(row[j] - mx);
        sum += row[j];
      }
      const float inv = 1.0f / sum;
      for (int64_t j = 0; j < rank; ++j) row[j] *= inv;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(dv),
                static_cast<blasint>(rank), 1.0f, p, static_cast<blasint>(rank), s->values.data(),
                static_cast<blasint>(dv), 0.0f, out + r0 * out_stride, static_cast<blasint>(out_stride));
    if (weights != nullptr) {  // w = P·F_T  [n, T]
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(t),
                  static_cast<blasint>(rank), 1.0f, p, static_cast<blasint>(rank), f_t.data,
                  static_cast<blasint>(f_t.stride), 0.0f, weights + r0 * t, static_cast<blasint>(t));
    }
  }
}

}  // namespace tokvec
