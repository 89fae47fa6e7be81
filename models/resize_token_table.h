// Growing a model's token tables to a larger vocabulary (`tokvec init --from DIR --tokenizer EXTENDED`), after
// `tokvec extend` added tokens or merges: every old row stays as it was, the new rows start as Hugging Face's
// resize_token_embeddings (mean_resizing, transformers >= 4.46) starts them:
//   - a table [V, D] (the token embeddings; an untied LM head): each new row is drawn from the normal distribution
//     with the old rows' mean μ and covariance 1e-9 · Σ (Σ = the old rows' covariance, over V), so new tokens
//     start at the average token and the model's outputs barely move; when Σ is not positive definite, every new
//     row is μ;
//   - a bias [V] (an LM head's): each new entry is the old entries' mean.
// The draws come from NormalSampler(seed) (not PyTorch's generator): the same seed gives the same rows.
//
//   TOKVEC_ASSIGN_OR_RETURN(ResizeReport report,
//                           ResizeTokenTables("gpt2/model.safetensors",
//                                             {.table_rows = 50257, .old_ids = 50257, .new_ids = 51257, .hidden = 768},
//                                             {.seed = 1}, "out.safetensors"));
//
// Every other float tensor is copied unchanged (tensors of other dtypes, such as BERT's I64 position_ids buffer, are
// left out and listed). The output is F32 safetensors (F16 / BF16 inputs are widened: memory and the file follow
// the F32 size), one file also for a sharded input.
#ifndef TOKVEC_MODELS_RESIZE_TOKEN_TABLE_H_
#define TOKVEC_MODELS_RESIZE_TOKEN_TABLE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tokvec {

struct ResizeOptions {
  uint64_t seed = 0;
  // Rows given outright for new tokens of the input token table (`name` of the tensor, e.g. from word2vec vectors):
  // (token id >= old_vocab, D floats, alive during the call).
  std::string table_name;
  std::vector<std::pair<int64_t, const float*>> given_rows;
};

struct ResizeReport {
  std::vector<std::string> tables;  // the tensors grown, by name
  bool sampled = true;              // false: Σ was not positive definite and the new rows are the mean
  std::vector<std::string> dropped;  // tensors not of a float dtype (buffers such as position_ids), not written
};

// The sizes involved: a table has `table_rows` rows (config.json's vocab_size), of which the model's tokenizer uses
// the first `old_ids` (fewer when the table is padded, as Qwen's or Pythia's); the new tokenizer has `new_ids`.
struct ResizeShape {
  int64_t table_rows = 0;
  int64_t old_ids = 0;
  int64_t new_ids = 0;
  int64_t hidden = 0;  // D: a token table is [table_rows, D]
};

// Reads `weights_path` (model.safetensors or its index) and writes every tensor to `out_path`, each token table
// grown to max(table_rows, new_ids) rows: rows below old_ids as they were, rows old_ids..new_ids - 1 new (drawn
// from the statistics of rows below old_ids; a padded table's spare rows are replaced), rows past new_ids as they
// were. A token table is a tensor named like wte / word_embeddings / embed_tokens / tok_embeddings / lm_head /
// decoder / embed_out of shape [table_rows, D], or [table_rows] with "bias" in its name. Errors: new_ids not
// above old_ids, old_ids above table_rows, no token table, unreadable weights (named).
absl::StatusOr<ResizeReport> ResizeTokenTables(const std::string& weights_path, const ResizeShape& shape,
                                               const ResizeOptions& options, const std::string& out_path);

// New rows for a table [old_rows, cols] (row-major): `count` rows of cols floats drawn as above, appended to `out`.
// Returns false when the covariance is not positive definite (the rows are then the mean).
bool DrawMeanResizedRows(const float* table, int64_t old_rows, int64_t cols, int64_t count, uint64_t seed,
                         std::vector<float>* out);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_RESIZE_TOKEN_TABLE_H_
