// Dense float32 matrices, row-major: element (r, c) of a [rows, cols] matrix is data[r * cols + c].
//
// Shape legend used across embeddings/ and attention/:
//   T  seq_len (tokens in a sequence)     D  d_model      H  n_heads     Dh  head_dim (D / H)
//   V  vocab_size                          F  feed-forward width          B  batch
//
//   Matrix x(T, D);              // [T, D], zero-filled
//   x.at(t, d) = 1.0f;
//   MatrixView w = x.view();     // non-owning, e.g. over a memory-mapped safetensors tensor
#ifndef TOKVEC_KERNELS_TENSOR_H_
#define TOKVEC_KERNELS_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tokvec {

// A non-owning read-only view of a row-major [rows, cols] float32 matrix.
struct MatrixView {
  const float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;

  const float* row(int64_t r) const { return data + r * cols; }
  float at(int64_t r, int64_t c) const { return data[r * cols + c]; }
  int64_t size() const { return rows * cols; }
};

// An owning row-major [rows, cols] float32 matrix.
class Matrix {
 public:
  Matrix() = default;
  Matrix(int64_t rows, int64_t cols) : rows_(rows), cols_(cols), data_(static_cast<size_t>(rows * cols), 0.0f) {}

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t size() const { return rows_ * cols_; }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  float* row(int64_t r) { return data_.data() + r * cols_; }
  const float* row(int64_t r) const { return data_.data() + r * cols_; }
  float& at(int64_t r, int64_t c) { return data_[static_cast<size_t>(r * cols_ + c)]; }
  float at(int64_t r, int64_t c) const { return data_[static_cast<size_t>(r * cols_ + c)]; }
  MatrixView view() const { return {data_.data(), rows_, cols_}; }
  std::vector<float>& storage() { return data_; }
  const std::vector<float>& storage() const { return data_; }

 private:
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  std::vector<float> data_;  // [rows, cols]
};

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_TENSOR_H_
