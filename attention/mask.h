// Which keys each query may attend to, as used by scaled dot-product and multi-head attention.
//
//   AttentionMask mask;
//   mask.causal = true;                         // query i sees keys j <= i + (Tk - Tq)
//   mask.key_padding = {0, 0, 0, 1};            // [Tk]: nonzero = padding, never attended to
//   mask.blocked = ...;                         // [Tq * Tk] booleans, nonzero = may not attend
//   mask.additive = Matrix(Tq, Tk);             // [Tq, Tk] added to the scores (-infinity blocks)
//
// The conventions follow torch.nn.MultiheadAttention: key_padding_mask True = ignore that key; a boolean
// attn_mask True = not allowed; a float attn_mask is added to QKᵀ/√d_k. All given parts combine.
// A query row with no allowed key gets all-zero weights and a zero context vector (PyTorch gives NaN).
#ifndef TOKVEC_ATTENTION_MASK_H_
#define TOKVEC_ATTENTION_MASK_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "kernels/tensor.h"

namespace tokvec {

struct AttentionMask {
  // Query i (of Tq) may see key j (of Tk) only if j <= i + (Tk - Tq): the last query sees every key. For
  // Tq == Tk this is the usual lower-triangular mask.
  bool causal = false;
  std::vector<uint8_t> key_padding;  // [Tk] or empty; nonzero = padding
  std::vector<uint8_t> blocked;      // [Tq * Tk] row-major or empty; nonzero = not allowed
  Matrix additive;                   // [Tq, Tk] or empty (0x0)

  bool empty() const { return !causal && key_padding.empty() && blocked.empty() && additive.size() == 0; }
};

// InvalidArgument naming the part whose shape does not fit [q_len, k_len].
absl::Status ValidateMask(const AttentionMask& mask, int64_t q_len, int64_t k_len);

// Adds the mask to one row of scores (query i, [Tk] entries): -infinity where not allowed, + additive.
void ApplyMaskToRow(const AttentionMask& mask, int64_t i, int64_t q_len, int64_t k_len, float* scores);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_MASK_H_
