#include "embeddings/positional.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace tokvec {

absl::StatusOr<Matrix> SinusoidalTable(int64_t max_len, int64_t d_model) {
  if (max_len < 0 || d_model <= 0) {
    return absl::InvalidArgumentError(fmt::format(
        "sinusoidal table needs max_len >= 0 and d_model > 0, got max_len {} and d_model {}", max_len, d_model));
  }
  Matrix pe(max_len, d_model);  // [N, D]
  for (int64_t pos = 0; pos < max_len; ++pos) {
    for (int64_t i = 0; 2 * i < d_model; ++i) {
      // pos / 10000^(2i/D)
      const double angle = static_cast<double>(pos) / std::pow(10000.0, static_cast<double>(2 * i) / d_model);
      pe.at(pos, 2 * i) = static_cast<float>(std::sin(angle));
      if (2 * i + 1 < d_model) pe.at(pos, 2 * i + 1) = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

absl::Status AddPositions(MatrixView table, int64_t first_position, Matrix* x) {
  if (table.cols != x->cols()) {
    return absl::InvalidArgumentError(fmt::format(
        "position table width {} does not match the token vectors' width {} (d_model)", table.cols, x->cols()));
  }
  const int64_t last = first_position + x->rows() - 1;
  if (first_position < 0 || (x->rows() > 0 && last >= table.rows)) {
    return absl::OutOfRangeError(fmt::format(
        "position {} is beyond the maximum length {} of the position table; use at most {} tokens",
        first_position < 0 ? first_position : last, table.rows, table.rows - std::max<int64_t>(first_position, 0)));
  }
  for (int64_t t = 0; t < x->rows(); ++t) {
    const float* p = table.row(first_position + t);
    float* row = x->row(t);
    for (int64_t d = 0; d < x->cols(); ++d) row[d] += p[d];
  }
  return absl::OkStatus();
}

void ApplyRotaryToHead(const RotaryOptions& options, int64_t seq_len, int64_t head_dim, int64_t first_position,
                       float* x, int64_t row_stride) {
  const int64_t half = head_dim / 2;
  for (int64_t t = 0; t < seq_len; ++t) {
    float* row = x + t * row_stride;
    const double pos = static_cast<double>(first_position + t);
    for (int64_t i = 0; i < half; ++i) {
      // theta_i = base^(-2i/Dh); pair (a, b) -> (a cos - b sin, a sin + b cos)
      const double theta = std::pow(static_cast<double>(options.base), -2.0 * i / head_dim);
      const double c = std::cos(pos * theta), s = std::sin(pos * theta);
      const int64_t ia = options.pairing == RotaryPairing::kInterleaved ? 2 * i : i;
      const int64_t ib = options.pairing == RotaryPairing::kInterleaved ? 2 * i + 1 : i + half;
      const double a = row[ia], b = row[ib];
      row[ia] = static_cast<float>(a * c - b * s);
      row[ib] = static_cast<float>(a * s + b * c);
    }
  }
}

absl::Status ApplyRotary(const RotaryOptions& options, int64_t n_heads, int64_t first_position, Matrix* x) {
  if (n_heads <= 0 || x->cols() % n_heads != 0 || (x->cols() / n_heads) % 2 != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "rotary positions need a width ({}) divisible by n_heads ({}) into an even head_dim", x->cols(), n_heads));
  }
  if (first_position < 0) {
    return absl::OutOfRangeError(fmt::format("rotary first position {} is negative", first_position));
  }
  const int64_t head_dim = x->cols() / n_heads;
  for (int64_t h = 0; h < n_heads; ++h) {
    ApplyRotaryToHead(options, x->rows(), head_dim, first_position, x->data() + h * head_dim, x->cols());
  }
  return absl::OkStatus();
}

}  // namespace tokvec
