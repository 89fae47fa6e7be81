#include "attention/scaled_dot_product.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "fmt/format.h"
#include "kernels/ops.h"

namespace tokvec {

void AttendHead(StridedView q, StridedView k, StridedView v, const AttentionMask& mask, float scale,
                float* scores, float* out, int64_t out_stride) {
  UseSingleThreadedBlas();
  const int64_t q_len = q.rows, k_len = k.rows, head_dim = q.cols, v_dim = v.cols;
  if (q_len == 0) return;
  if (k_len == 0) {  // nothing to attend to: zero context
    for (int64_t i = 0; i < q_len; ++i) std::fill_n(out + i * out_stride, v_dim, 0.0f);
    return;
  }
  // 1. scores = scale · Q·Kᵀ   [Tq, Tk]
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(q_len), static_cast<blasint>(k_len),
              static_cast<blasint>(head_dim), scale, q.data, static_cast<blasint>(q.stride), k.data,
              static_cast<blasint>(k.stride), 0.0f, scores, static_cast<blasint>(k_len));
  // 2. mask, then stable softmax per row (a fully masked row becomes zeros)
  for (int64_t i = 0; i < q_len; ++i) {
    float* row = scores + i * k_len;
    if (!mask.empty()) ApplyMaskToRow(mask, i, q_len, k_len, row);
    SoftmaxInPlace({row, static_cast<size_t>(k_len)});
  }
  // 3. context = weights · V   [Tq, Dv]
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(q_len), static_cast<blasint>(v_dim),
              static_cast<blasint>(k_len), 1.0f, scores, static_cast<blasint>(k_len), v.data,
              static_cast<blasint>(v.stride), 0.0f, out, static_cast<blasint>(out_stride));
}

absl::StatusOr<Matrix> ScaledDotProductAttention(MatrixView q, MatrixView k, MatrixView v,
                                                 const AttentionMask& mask, Matrix* weights,
                                                 std::optional<float> scale) {
  if (q.cols != k.cols) {
    return absl::InvalidArgumentError(fmt::format(
        "queries have width {} but keys have width {}; Q·Kᵀ needs equal widths (d_k)", q.cols, k.cols));
  }
  if (k.rows != v.rows) {
    return absl::InvalidArgumentError(
        fmt::format("{} keys but {} values; each key needs one value row", k.rows, v.rows));
  }
  if (absl::Status status = ValidateMask(mask, q.rows, k.rows); !status.ok()) return status;
  const float s = scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(q.cols))));
  Matrix scores(q.rows, k.rows);  // [Tq, Tk]
  Matrix context(q.rows, v.cols);  // [Tq, Dv]
  AttendHead({q.data, q.rows, q.cols, q.cols}, {k.data, k.rows, k.cols, k.cols}, {v.data, v.rows, v.cols, v.cols},
             mask, s, scores.data(), context.data(), v.cols);
  if (weights != nullptr) *weights = std::move(scores);
  return context;
}

}  // namespace tokvec
