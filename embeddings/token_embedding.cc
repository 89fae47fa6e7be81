#include "embeddings/token_embedding.h"

#include <algorithm>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace tokvec {

absl::StatusOr<Matrix> EmbedTokens(MatrixView table, std::span<const uint32_t> ids) {
  Matrix x(static_cast<int64_t>(ids.size()), table.cols);  // [T, D]
  for (size_t t = 0; t < ids.size(); ++t) {
    const int64_t id = ids[t];
    if (id >= table.rows) {
      return absl::InvalidArgumentError(fmt::format(
          "token id {} at position {} is outside the embedding table (vocab_size {}); the tokenizer and the "
          "model do not match",
          id, t, table.rows));
    }
    std::copy_n(table.row(id), table.cols, x.row(static_cast<int64_t>(t)));
  }
  return x;
}

}  // namespace tokvec
