#include "models/sequence_classifier.h"

#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "embeddings/safetensors_shards.h"
#include "fmt/format.h"
#include "models/model_config.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

struct HeadLayout {
  std::string_view architecture;
  SequenceClassifier::Kind kind;
  std::string_view dense;  // [D, D] before the activation
  std::string_view out;    // [L, D]
};

constexpr HeadLayout kHeads[] = {
    {"BertForSequenceClassification", SequenceClassifier::Kind::kBert, "bert.pooler.dense", "classifier"},
    {"DistilBertForSequenceClassification", SequenceClassifier::Kind::kDistilBert, "pre_classifier", "classifier"},
    {"RobertaForSequenceClassification", SequenceClassifier::Kind::kRoberta, "classifier.dense",
     "classifier.out_proj"},
    {"XLMRobertaForSequenceClassification", SequenceClassifier::Kind::kRoberta, "classifier.dense",
     "classifier.out_proj"},
    // MPNetClassificationHead: RoBERTa's (dense + tanh on <s>, out_proj).
    {"MPNetForSequenceClassification", SequenceClassifier::Kind::kRoberta, "classifier.dense", "classifier.out_proj"},
    {"ModernBertForSequenceClassification", SequenceClassifier::Kind::kModernBert, "head.dense", "classifier"},
};

// Reads name.weight ([rows, cols]; rows 0: any) and name.bias into `weight` and `bias`; returns the rows. Without
// `has_bias` the bias is zeros. A 1-D tensor (a LayerNorm's) when cols is 0.
absl::StatusOr<int64_t> ReadLinear(SafetensorsShards& weights, std::string_view name, int64_t rows, int64_t cols,
                                   std::vector<float>* weight, std::vector<float>* bias, bool has_bias = true) {
  for (const char* part : {".weight", ".bias"}) {
    const std::string full = std::string(name) + part;
    if (!has_bias && part == std::string_view(".bias")) {
      bias->assign(static_cast<size_t>(rows), 0.0f);
      break;
    }
    if (weights.Find(full) == nullptr) {
      return absl::InvalidArgumentError(fmt::format("'{}' has no tensor '{}' (the classification head)",
                                                    weights.path(), full));
    }
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, weights.ReadFloat32(full));
    const bool is_weight = part == std::string_view(".weight");
    const bool ok = is_weight && cols == 0 ? t.shape.size() == 1 && t.shape[0] == rows
                    : is_weight ? t.shape.size() == 2 && t.shape[1] == cols && (rows == 0 || t.shape[0] == rows) &&
                                      t.shape[0] > 0
                                : t.shape.size() == 1 && t.shape[0] == rows;
    if (!ok) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}': tensor '{}' has shape [{}]; expected [{}]", weights.path(), full, fmt::join(t.shape, ", "),
          is_weight && cols != 0 ? fmt::format("{}, {}", rows == 0 ? "labels" : std::to_string(rows), cols)
                                 : std::to_string(rows)));
    }
    if (is_weight) rows = t.shape[0];
    int64_t size = 1;
    for (int64_t s : t.shape) size *= s;
    (is_weight ? weight : bias)->assign(t.data, t.data + size);
  }
  return rows;
}

}  // namespace

absl::StatusOr<SequenceClassifier> SequenceClassifier::Load(const std::string& config_path,
                                                            const std::string& weights_path, int64_t d_model) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(config_path));
  const nlohmann::json config = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) return absl::InvalidArgumentError(fmt::format("'{}' is not a JSON object", config_path));
  const HeadLayout* layout = nullptr;
  std::vector<std::string> named;
  if (auto it = config.find("architectures"); it != config.end() && it->is_array()) {
    for (const auto& name : *it) {
      if (!name.is_string()) continue;
      named.push_back(name.get<std::string>());
      for (const HeadLayout& head : kHeads) {
        if (layout == nullptr && head.architecture == named.back()) layout = &head;
      }
    }
  }
  if (layout == nullptr) {
    std::vector<std::string> known;
    for (const HeadLayout& head : kHeads) known.emplace_back(head.architecture);
    return absl::InvalidArgumentError(fmt::format(
        "'{}' names no classification head tokvec reads (\"architectures\": [{}]); tokvec reads {}", config_path,
        named.empty() ? std::string() : fmt::format("\"{}\"", fmt::join(named, "\", \"")), fmt::join(known, ", ")));
  }
  SequenceClassifier head;
  head.kind_ = layout->kind;
  head.architecture_ = std::string(layout->architecture);
  head.d_model_ = d_model;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsShards> weights, SafetensorsShards::Open(weights_path));
  bool dense_bias = true;
  if (layout->kind == Kind::kModernBert) {
    TOKVEC_RETURN_IF_ERROR(head.ReadModernBertKeys(config, config_path));
    TOKVEC_ASSIGN_OR_RETURN(dense_bias, GetBool(config, "classifier_bias", false, config_path));
  }
  // ModernBertForSequenceClassification saves the encoder under "model.", the head beside it.
  TOKVEC_RETURN_IF_ERROR(ReadLinear(*weights, layout->dense, d_model, d_model, &head.dense_weight_, &head.dense_bias_,
                                    dense_bias).status());
  if (layout->kind == Kind::kModernBert) {
    TOKVEC_ASSIGN_OR_RETURN(const bool norm_bias, GetBool(config, "norm_bias", false, config_path));
    TOKVEC_RETURN_IF_ERROR(ReadLinear(*weights, "head.norm", d_model, 0, &head.norm_weight_, &head.norm_bias_,
                                      norm_bias).status());
  }
  TOKVEC_ASSIGN_OR_RETURN(const int64_t labels,
                          ReadLinear(*weights, layout->out, 0, d_model, &head.out_weight_, &head.out_bias_));
  // id2label: {"0": "negative", "1": "positive"}; names missing from it are LABEL_i, as transformers names them.
  std::map<int64_t, std::string> id2label;
  if (auto it = config.find("id2label"); it != config.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      char* end = nullptr;
      const long id = std::strtol(key.c_str(), &end, 10);
      if (end != key.c_str() && *end == '\0' && value.is_string()) id2label[id] = value.get<std::string>();
    }
  }
  for (int64_t i = 0; i < labels; ++i) {
    auto found = id2label.find(i);
    head.labels_.push_back(found != id2label.end() ? found->second : fmt::format("LABEL_{}", i));
  }
  return head;
}

absl::Status SequenceClassifier::ReadModernBertKeys(const nlohmann::json& config, const std::string& path) {
  std::string pooling = "cls";
  if (auto it = config.find("classifier_pooling"); it != config.end() && !it->is_null()) {
    if (!it->is_string()) {
      return absl::InvalidArgumentError(fmt::format(
          "config '{}': key 'classifier_pooling' must be \"cls\" or \"mean\", not {}", path, it->dump()));
    }
    pooling = it->get<std::string>();
  }
  if (pooling != "cls" && pooling != "mean") {
    return absl::InvalidArgumentError(fmt::format(
        "config '{}': key 'classifier_pooling' is \"{}\"; ModernBertForSequenceClassification pools \"cls\" or "
        "\"mean\"", path, pooling));
  }
  mean_pooling_ = pooling == "mean";
  if (auto act = config.find("classifier_activation"); act != config.end()) {
    absl::StatusOr<Activation> parsed =
        act->is_string() ? ParseActivation(act->get<std::string>()) : absl::InvalidArgumentError("not a string");
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(fmt::format("config '{}': key 'classifier_activation' is {}: {}", path,
                                                    act->dump(), std::string(parsed.status().message())));
    }
    activation_ = *parsed;
  }
  if (auto eps = config.find("norm_eps"); eps != config.end() && eps->is_number()) {
    norm_eps_ = eps->get<float>();
  }
  return absl::OkStatus();
}

std::vector<float> SequenceClassifier::Logits(MatrixView hidden) const {
  const int64_t d = d_model_;
  std::vector<float> mean;
  const float* first = hidden.row(0);
  if (mean_pooling_) {  // every row is a token: the caller passes one unpadded sequence
    std::vector<double> sum(static_cast<size_t>(d), 0.0);
    for (int64_t t = 0; t < hidden.rows; ++t) {
      for (int64_t i = 0; i < d; ++i) sum[static_cast<size_t>(i)] += hidden.row(t)[i];
    }
    for (double v : sum) mean.push_back(static_cast<float>(v / static_cast<double>(hidden.rows)));
    first = mean.data();
  }
  std::vector<float> pooled(static_cast<size_t>(d));
  for (int64_t o = 0; o < d; ++o) {
    double sum = dense_bias_[static_cast<size_t>(o)];
    const float* w = dense_weight_.data() + o * d;
    for (int64_t i = 0; i < d; ++i) sum += static_cast<double>(w[i]) * first[i];
    pooled[static_cast<size_t>(o)] = kind_ == Kind::kDistilBert    ? static_cast<float>(std::max(sum, 0.0))
                                     : kind_ == Kind::kModernBert ? static_cast<float>(sum)
                                                                  : static_cast<float>(std::tanh(sum));
  }
  if (kind_ == Kind::kModernBert) {  // head.norm(act(head.dense(x)))
    ApplyActivation(activation_, pooled);
    LayerNormInto({pooled.data(), 1, d}, {.gamma = norm_weight_, .beta = norm_bias_, .eps = norm_eps_},
                  pooled.data());
  }
  std::vector<float> logits(out_bias_.size());
  for (size_t l = 0; l < logits.size(); ++l) {
    double sum = out_bias_[l];
    const float* w = out_weight_.data() + static_cast<int64_t>(l) * d;
    for (int64_t i = 0; i < d; ++i) sum += static_cast<double>(w[i]) * pooled[static_cast<size_t>(i)];
    logits[l] = static_cast<float>(sum);
  }
  return logits;
}

}  // namespace tokvec
