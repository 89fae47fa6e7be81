// A cross-encoder or text classifier directory: a model directory (model_directory.h) whose config.json names a
// *ForSequenceClassification architecture (models/sequence_classifier.h). Each (query, document) pair is encoded
// as the tokenizer's pair template lays it out (BERT: [CLS] query [SEP] document [SEP], type ids 0 then 1; tokenizer/
// sequence_encoding.h), cut longest-first to the model's maximum as sentence-transformers' CrossEncoder cuts it,
// run through the model with its type ids, and the head gives the logits. Scores are what CrossEncoder.predict and
// TEI's /rerank give: the sigmoid of the logit for a one-label model (raw logits on request), softmax over the
// labels otherwise.
//
//   TOKVEC_ASSIGN_OR_RETURN(CrossEncoder ranker, CrossEncoder::Load("models/ms-marco-MiniLM-L6-v2"));
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<std::vector<float>> logits,
//                           ranker.Logits({"how big is the moon?"}, {"The moon is 3,474 km across."}, 2));
//   std::vector<RankedDocument> ranked = RankDocuments(logits, /*raw_scores=*/false);
#ifndef TOKVEC_PIPELINE_CROSS_ENCODER_H_
#define TOKVEC_PIPELINE_CROSS_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "models/sequence_classifier.h"
#include "pipeline/model_directory.h"

namespace tokvec {

class CrossEncoder {
 public:
  static absl::StatusOr<CrossEncoder> Load(const std::string& dir, LinearDtype dtype = LinearDtype::kF32);

  // The logits [N] x [L] of the pairs (a[i], b[i]), or of the single texts a[i] when `b` is empty; `threads` for
  // the model. Errors name the pair's index (a tokenizer error, a pair whose special tokens alone fill the model).
  absl::StatusOr<std::vector<std::vector<float>>> Logits(absl::Span<const std::string_view> a,
                                                         absl::Span<const std::string_view> b, int threads) const;

  const ModelDirectory& directory() const { return directory_; }
  const SequenceClassifier& head() const { return head_; }

 private:
  CrossEncoder(ModelDirectory directory, SequenceClassifier head)
      : directory_(std::move(directory)), head_(std::move(head)) {}
  ModelDirectory directory_;
  SequenceClassifier head_;
};

// What the model runs for the pairs (a[i], b[i]) (or the single texts a[i] when `b` is empty): the ids of each
// (special tokens included, cut longest-first to the model's maximum) and their type ids. Errors name the index.
struct ClassifierInputs {
  std::vector<std::vector<uint32_t>> ids;      // [N] x [T_i]
  std::vector<std::vector<uint8_t>> type_ids;  // [N] x [T_i]
};
absl::StatusOr<ClassifierInputs> EncodeClassifierInputs(const ModelDirectory& directory,
                                                        absl::Span<const std::string_view> a,
                                                        absl::Span<const std::string_view> b);

// The head of a directory already loaded (what CrossEncoder::Load reads after the directory).
absl::StatusOr<SequenceClassifier> LoadSequenceClassifier(const ModelDirectory& directory);
// CrossEncoder::Logits with a directory and head held elsewhere (e.g. Python's tokvec.Model): the inputs batched
// by EmbedIdSequences (embed_texts.h), so a pair's logits do not depend on the other pairs or on `threads`.
absl::StatusOr<std::vector<std::vector<float>>> ClassifierLogits(const ModelDirectory& directory,
                                                                 const SequenceClassifier& head,
                                                                 absl::Span<const std::string_view> a,
                                                                 absl::Span<const std::string_view> b, int threads);

// Scores from logits: one label, the sigmoid of its logit (the logit itself with `raw_scores`); several, the
// softmax over them (raw: the logits).
std::vector<float> ScoresOf(const std::vector<float>& logits, bool raw_scores);

struct RankedDocument {
  size_t index;  // the document's position in the input
  float score;   // ScoresOf(...)[0] for a one-label model; else the first label's
};
// Documents by score, highest first; ties keep input order. `top_k` 0: all.
std::vector<RankedDocument> RankDocuments(const std::vector<std::vector<float>>& logits, bool raw_scores,
                                          size_t top_k = 0);

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_CROSS_ENCODER_H_
