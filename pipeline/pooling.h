// Pooling per-token contextual vectors into one vector per text, and sentence-transformers' pooling config.
//
//   none  every token's vector, [T, D]           mean  the average over tokens (sentence-transformers' default)
//   cls   the first token's vector (<s> / [CLS]) last  the last token's (the natural summary of a causal model)
//   max   the element-wise maximum over tokens
//
//   TOKVEC_ASSIGN_OR_RETURN(Pooling pooling, ParsePooling("mean"));
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<float> v, PoolVectors(hidden.view(), pooling));  // [D]
//   NormalizeL2(v);                                                                       // |v| = 1
//
// A sentence-transformers model directory (modules.json listing a Pooling module, whose folder holds
// config.json with pooling_mode_* flags, then optionally Dense modules (sentence_dense.h) and a Normalize module)
// is read by LoadSentenceTransformersPooling; `tokvec embed --pooling auto` applies it.
#ifndef TOKVEC_PIPELINE_POOLING_H_
#define TOKVEC_PIPELINE_POOLING_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "pipeline/sentence_dense.h"

namespace tokvec {

enum class Pooling { kNone, kMean, kCls, kLast, kMax };

// "none", "mean", "cls", "last", "max"; anything else is InvalidArgument listing them.
absl::StatusOr<Pooling> ParsePooling(std::string_view name);
std::string_view PoolingName(Pooling pooling);

// hidden: [T, D] -> [D]. kNone is InvalidArgument; T == 0 is InvalidArgument (nothing to pool).
absl::StatusOr<std::vector<float>> PoolVectors(MatrixView hidden, Pooling pooling);

// Scales `v` to unit Euclidean length (sentence-transformers' Normalize); a zero vector stays zero.
void NormalizeL2(std::span<float> v);

// Matryoshka truncation, as the OpenAI API's `dimensions`: keeps the first k values of every row and scales each
// row to unit length. InvalidArgument when k is 0 or more than the rows have.
absl::StatusOr<Matrix> TruncateDimensions(MatrixView vectors, int64_t k);

struct SentenceTransformersPooling {
  Pooling pooling = Pooling::kMean;
  bool normalize = false;  // a sentence_transformers.models.Normalize module follows the pooling
  bool include_prompt = true;  // the Pooling config's include_prompt: false leaves a prompt's tokens out
  // The Dense modules after the Pooling, in modules.json's order (null when there are none); shared, read-only.
  std::shared_ptr<const std::vector<SentenceDense>> dense;
};

// The width of the vectors `dense` gives for pooled vectors of width d: the last layer's out_features, or d.
int64_t DenseOutputWidth(const std::shared_ptr<const std::vector<SentenceDense>>& dense, int64_t d);

// Checks that `dense` takes pooled vectors of width d and that each layer takes its predecessor's output;
// InvalidArgument naming the module folder and both widths otherwise.
absl::Status CheckDenseWidths(const std::vector<SentenceDense>& dense, int64_t d);

// Reads DIR/modules.json and the Pooling module's config.json. std::nullopt when DIR has no modules.json;
// an error (naming the file and key) when they are malformed or ask for an unsupported mode
// (pooling_mode_mean_sqrt_len_tokens, weighted, or several modes at once), and for a module tokvec does not run
// (named), a Dense module before the Pooling, or anything after a Normalize module.
absl::StatusOr<std::optional<SentenceTransformersPooling>> LoadSentenceTransformersPooling(const std::string& dir);

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_POOLING_H_
