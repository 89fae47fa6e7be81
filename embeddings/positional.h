// Positional information added to (or rotated into) token vectors.
//
//   Sinusoidal (Vaswani et al. 2017, §3.5, https://arxiv.org/abs/1706.03762):
//     PE[pos, 2i] = sin(pos / 10000^(2i/D)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/D))
//   Learned absolute (GPT-2's `wpe.weight`): a trained [max_len, D] table, looked up by position.
//   Rotary, RoPE (Su et al. 2021, https://arxiv.org/abs/2104.09864): each pair of a head's query/key
//     features is rotated by the angle pos * base^(-2i/Dh), so q·k depends only on the relative position.
//
//   TOKVEC_ASSIGN_OR_RETURN(Matrix pe, SinusoidalTable(/*max_len=*/512, /*d_model=*/64));   // [N, D]
//   TOKVEC_RETURN_IF_ERROR(AddPositions(pe.view(), /*first_position=*/0, &x));             // x: [T, D]
//   TOKVEC_RETURN_IF_ERROR(ApplyRotary(RotaryOptions{}, /*n_heads=*/4, 0, &q));             // q: [T, H*Dh]
#ifndef TOKVEC_EMBEDDINGS_POSITIONAL_H_
#define TOKVEC_EMBEDDINGS_POSITIONAL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace tokvec {

// The sinusoidal table [max_len, d_model], computed in double and rounded to float. An odd d_model is allowed
// (the last column is a sine). max_len < 0 or d_model <= 0 is InvalidArgument.
absl::StatusOr<Matrix> SinusoidalTable(int64_t max_len, int64_t d_model);

// x.row(t) += table.row(first_position + t) for every t: works for the sinusoidal and the learned table
// ([max_len, D]). A position >= max_len is OutOfRange naming the position and max_len; a width mismatch is
// InvalidArgument.
absl::Status AddPositions(MatrixView table, int64_t first_position, Matrix* x);  // x: [T, D]

// How the features of one head are paired for the rotation.
enum class RotaryPairing {
  kInterleaved,  // (0,1), (2,3), ...: the paper's form, GPT-J.
  kHalves,       // (i, i + Dh/2): GPT-NeoX / LLaMA "rotate_half".
};

struct RotaryOptions {
  float base = 10000.0f;                                  // theta_i = base^(-2i/Dh)
  RotaryPairing pairing = RotaryPairing::kInterleaved;
};

// Rotates every head of x ([T, n_heads * head_dim], heads side by side) in place; row t has position
// first_position + t. head_dim must be even (InvalidArgument otherwise), as must divide x's width.
absl::Status ApplyRotary(const RotaryOptions& options, int64_t n_heads, int64_t first_position, Matrix* x);

// The same on one head's block of a wider row-major buffer: x points at head column 0 of row 0, rows are
// `row_stride` floats apart. No checks (callers validate); used by multi-head attention.
void ApplyRotaryToHead(const RotaryOptions& options, int64_t seq_len, int64_t head_dim, int64_t first_position,
                       float* x, int64_t row_stride);

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_POSITIONAL_H_
