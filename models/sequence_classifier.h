// Hugging Face's *ForSequenceClassification heads over a model's last hidden state, for cross-encoders (rerankers)
// and text classifiers. Each reads the first token's vector ([CLS] / <s>) and gives one logit per label:
//   BertForSequenceClassification        bert.pooler.dense [D, D], tanh, then classifier [L, D]
//   DistilBertForSequenceClassification  pre_classifier [D, D], ReLU, then classifier [L, D]
//   RobertaForSequenceClassification, XLMRobertaForSequenceClassification (bge-reranker-base / -v2-m3),
//   MPNetForSequenceClassification (the same head)
//                                        classifier.dense [D, D], tanh, then classifier.out_proj [L, D]
//   ModernBertForSequenceClassification  the [CLS] vector or the mean over the tokens (classifier_pooling "cls" /
//                                        "mean"), head.dense [D, D] (bias when classifier_bias),
//                                        classifier_activation, head.norm (LayerNorm, bias when norm_bias, norm_eps),
//                                        then classifier [L, D]
// (nn.Linear weights [out, in] with biases; dropout is off at inference). The kind comes from config.json's
// "architectures", the label names from its "id2label" (LABEL_i where it has none); the head's tensors sit in the
// checkpoint beside the model's.
//
//   TOKVEC_ASSIGN_OR_RETURN(SequenceClassifier head, SequenceClassifier::Load(dir + "/config.json", weights, 384));
//   std::vector<float> logits = head.Logits(hidden.view());   // [L]
#ifndef TOKVEC_MODELS_SEQUENCE_CLASSIFIER_H_
#define TOKVEC_MODELS_SEQUENCE_CLASSIFIER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace tokvec {

class SequenceClassifier {
 public:
  enum class Kind { kBert, kDistilBert, kRoberta, kModernBert };

  // The head config.json names, read from `weights_path` (model.safetensors or model.safetensors.index.json) for a
  // model of width `d_model`. InvalidArgument when config.json names no *ForSequenceClassification architecture
  // tokvec reads (the message lists them), and for a missing or misshapen tensor (naming it).
  static absl::StatusOr<SequenceClassifier> Load(const std::string& config_path, const std::string& weights_path,
                                                 int64_t d_model);

  // The logits of one sequence's hidden states [T, D] (T >= 1; row 0 is read, or every row: ModernBERT's "mean").
  std::vector<float> Logits(MatrixView hidden) const;

  Kind kind() const { return kind_; }
  const std::string& architecture() const { return architecture_; }
  // [L] names, by label id.
  const std::vector<std::string>& labels() const { return labels_; }

 private:
  // ModernBERT's classifier_pooling, classifier_activation and norm_eps (`config`: config.json at `path`).
  absl::Status ReadModernBertKeys(const nlohmann::json& config, const std::string& path);

  Kind kind_ = Kind::kBert;
  std::string architecture_;
  int64_t d_model_ = 0;
  std::vector<float> dense_weight_, dense_bias_;  // [D, D], [D]
  std::vector<float> out_weight_, out_bias_;      // [L, D], [L]
  // ModernBERT: mean pooling instead of row 0, the activation after head.dense, head.norm after it.
  bool mean_pooling_ = false;
  Activation activation_ = Activation::kGeluExact;
  std::vector<float> norm_weight_, norm_bias_;  // [D] each
  float norm_eps_ = 1e-5f;
  std::vector<std::string> labels_;
};

}  // namespace tokvec

#endif  // TOKVEC_MODELS_SEQUENCE_CLASSIFIER_H_
