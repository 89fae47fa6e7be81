// Token embedding: row lookup in a [V, D] table (Vaswani et al. 2017, §3.4; GPT-2's `wte.weight`).
//
//   MatrixView wte = ...;                                             // [V, D], e.g. memory-mapped
//   TOKVEC_ASSIGN_OR_RETURN(Matrix x, EmbedTokens(wte, ids));          // [T, D], x.row(t) = wte.row(ids[t])
//
// An id >= vocab_size is InvalidArgument naming the id, its position and vocab_size.
#ifndef TOKVEC_EMBEDDINGS_TOKEN_EMBEDDING_H_
#define TOKVEC_EMBEDDINGS_TOKEN_EMBEDDING_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace tokvec {

// Returns the rows of `table` ([V, D]) for `ids` (the tokenizer's TokenId is uint32_t): [T, D].
absl::StatusOr<Matrix> EmbedTokens(MatrixView table, std::span<const uint32_t> ids);

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_TOKEN_EMBEDDING_H_
