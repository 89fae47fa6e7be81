// Scaled dot-product attention (Vaswani et al. 2017, §3.2.1, https://arxiv.org/abs/1706.03762):
//
//   Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k + mask) · V
//
//   Matrix weights;                                                       // optional [Tq, Tk]
//   TOKVEC_ASSIGN_OR_RETURN(Matrix context,
//       ScaledDotProductAttention(q, k, v, mask, &weights));              // [Tq, Dv]
//
// This is the clear reference path: scores [Tq, Tk] by one cblas_sgemm, masked, stable row softmax (row max
// subtracted), then one more sgemm with V. PyTorch equivalent: torch.softmax(q @ k.T / sqrt(dk) + mask, -1) @ v.
#ifndef TOKVEC_ATTENTION_SCALED_DOT_PRODUCT_H_
#define TOKVEC_ATTENTION_SCALED_DOT_PRODUCT_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "attention/mask.h"
#include "kernels/tensor.h"

namespace tokvec {

// q: [Tq, Dk], k: [Tk, Dk], v: [Tk, Dv] -> context [Tq, Dv]. `scale` defaults to 1/√Dk. When `weights` is not
// null it receives the attention weights [Tq, Tk] (each row sums to 1, or is all zeros if fully masked).
absl::StatusOr<Matrix> ScaledDotProductAttention(MatrixView q, MatrixView k, MatrixView v,
                                                 const AttentionMask& mask, Matrix* weights = nullptr,
                                                 std::optional<float> scale = std::nullopt);

// A strided block of a row-major buffer: element (r, c) is data[r * stride + c], for c < cols.
struct StridedView {
  const float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t stride = 0;
};

// Unchecked kernel for one head: context rows are written to out (row r at out + r * out_stride, Dv floats).
// `scores` is scratch of Tq * Tk floats and holds the weights on return.
void AttendHead(StridedView q, StridedView k, StridedView v, const AttentionMask& mask, float scale,
                float* scores, float* out, int64_t out_stride);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_SCALED_DOT_PRODUCT_H_
