#include "pipeline/pooling.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec {

absl::StatusOr<Pooling> ParsePooling(std::string_view name) {
  for (Pooling p : {Pooling::kNone, Pooling::kMean, Pooling::kCls, Pooling::kLast, Pooling::kMax}) {
    if (PoolingName(p) == name) return p;
  }
  return absl::InvalidArgumentError(
      fmt::format("unknown pooling '{}'; expected none, mean, cls, last or max", name));
}

std::string_view PoolingName(Pooling pooling) {
  switch (pooling) {
    case Pooling::kNone:
      return "none";
    case Pooling::kMean:
      return "mean";
    case Pooling::kCls:
      return "cls";
    case Pooling::kLast:
      return "last";
    case Pooling::kMax:
      return "max";
  }
  return "none";
}

absl::StatusOr<std::vector<float>> PoolVectors(MatrixView hidden, Pooling pooling) {
  if (pooling == Pooling::kNone) return absl::InvalidArgumentError("pooling 'none' keeps every token's vector");
  if (hidden.rows == 0) {
    return absl::InvalidArgumentError(
        fmt::format("nothing to pool: the text has no tokens ({} pooling needs at least one)", PoolingName(pooling)));
  }
  const int64_t seq_len = hidden.rows, d = hidden.cols;
  std::vector<float> out(static_cast<size_t>(d));
  switch (pooling) {
    case Pooling::kCls:
      std::copy(hidden.row(0), hidden.row(0) + d, out.begin());
      break;
    case Pooling::kLast:
      std::copy(hidden.row(seq_len - 1), hidden.row(seq_len - 1) + d, out.begin());
      break;
    case Pooling::kMax:
      std::copy(hidden.row(0), hidden.row(0) + d, out.begin());
      for (int64_t t = 1; t < seq_len; ++t) {
        for (int64_t j = 0; j < d; ++j) out[j] = std::max(out[j], hidden.at(t, j));
      }
      break;
    case Pooling::kMean: {
      std::vector<double> sum(static_cast<size_t>(d), 0.0);  // double: the mean of many tokens stays exact
      for (int64_t t = 0; t < seq_len; ++t) {
        for (int64_t j = 0; j < d; ++j) sum[j] += hidden.at(t, j);
      }
      for (int64_t j = 0; j < d; ++j) out[j] = static_cast<float>(sum[j] / static_cast<double>(seq_len));
      break;
    }
    case Pooling::kNone:
      break;
  }
  return out;
}

void NormalizeL2(std::span<float> v) {
  double norm = 0.0;
  for (float x : v) norm += static_cast<double>(x) * x;
  norm = std::sqrt(norm);
  // torch.nn.functional.normalize divides by max(norm, 1e-12).
  norm = std::max(norm, 1e-12);
  for (float& x : v) x = static_cast<float>(x / norm);
}

absl::StatusOr<Matrix> TruncateDimensions(MatrixView vectors, int64_t k) {
  if (k < 1 || k > vectors.cols) {
    return absl::InvalidArgumentError(
        fmt::format("dimensions must be between 1 and the model's {}, not {}", vectors.cols, k));
  }
  Matrix out(vectors.rows, k);
  for (int64_t r = 0; r < vectors.rows; ++r) {
    std::copy(vectors.row(r), vectors.row(r) + k, out.row(r));
    NormalizeL2({out.row(r), static_cast<size_t>(k)});
  }
  return out;
}

absl::StatusOr<std::optional<SentenceTransformersPooling>> LoadSentenceTransformersPooling(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string modules_path = (fs::path(dir) / "modules.json").string();
  if (!fs::exists(modules_path)) return std::nullopt;
  TOKVEC_ASSIGN_OR_RETURN(std::string modules_text, ReadFile(modules_path));
  nlohmann::json modules = nlohmann::json::parse(modules_text, nullptr, /*allow_exceptions=*/false);
  if (modules.is_discarded() || !modules.is_array()) {
    return absl::InvalidArgumentError(fmt::format("'{}' is not a JSON array of modules", modules_path));
  }
  SentenceTransformersPooling result;
  bool has_pooling = false;
  std::vector<SentenceDense> dense;
  for (const auto& module : modules) {
    if (!module.is_object() || !module.contains("type") || !module["type"].is_string()) {
      return absl::InvalidArgumentError(fmt::format("'{}': a module has no string \"type\"", modules_path));
    }
    const std::string type = module["type"].get<std::string>();
    if (result.normalize) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}': module '{}' follows the Normalize module; tokvec runs Normalize last only", modules_path, type));
    }
    if (type.ends_with("models.Normalize")) {
      result.normalize = true;
    } else if (type.ends_with("models.Dense")) {
      if (!has_pooling) {
        return absl::InvalidArgumentError(fmt::format(
            "'{}': a Dense module before the Pooling module is not supported (Dense runs on the pooled vector)",
            modules_path));
      }
      if (!module.contains("path") || !module["path"].is_string()) {
        return absl::InvalidArgumentError(fmt::format("'{}': a Dense module has no string \"path\"", modules_path));
      }
      TOKVEC_ASSIGN_OR_RETURN(SentenceDense layer,
                              LoadSentenceDense((fs::path(dir) / module["path"].get<std::string>()).string()));
      dense.push_back(std::move(layer));
    } else if (type.ends_with("models.Pooling")) {
      if (module.contains("path") && !module["path"].is_string()) {
        return absl::InvalidArgumentError(
            fmt::format("'{}': a Pooling module's \"path\" is not a string", modules_path));
      }
      const std::string folder = module.value("path", std::string());
      const std::string config_path = (fs::path(dir) / folder / "config.json").string();
      TOKVEC_ASSIGN_OR_RETURN(std::string config_text, ReadFile(config_path));
      nlohmann::json config = nlohmann::json::parse(config_text, nullptr, /*allow_exceptions=*/false);
      if (config.is_discarded() || !config.is_object()) {
        return absl::InvalidArgumentError(fmt::format("'{}' is not a JSON object", config_path));
      }
      std::vector<Pooling> modes;
      for (const auto& [key, pooling] : {std::pair<const char*, Pooling>{"pooling_mode_mean_tokens", Pooling::kMean},
                                         {"pooling_mode_cls_token", Pooling::kCls},
                                         {"pooling_mode_max_tokens", Pooling::kMax},
                                         {"pooling_mode_lasttoken", Pooling::kLast}}) {
        if (config.value(key, false)) modes.push_back(pooling);
      }
      for (const char* key : {"pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens"}) {
        if (config.value(key, false)) {
          return absl::InvalidArgumentError(fmt::format("'{}': {} is not supported; tokvec pools by mean, cls, max "
                                                        "or last token",
                                                        config_path, key));
        }
      }
      if (modes.size() != 1) {
        return absl::InvalidArgumentError(fmt::format(
            "'{}': exactly one of pooling_mode_mean_tokens, pooling_mode_cls_token, pooling_mode_max_tokens, "
            "pooling_mode_lasttoken must be true ({} are)",
            config_path, modes.size()));
      }
      result.pooling = modes[0];
      const auto include_prompt = config.find("include_prompt");
      if (include_prompt != config.end() && !include_prompt->is_null()) {
        if (!include_prompt->is_boolean()) {
          return absl::InvalidArgumentError(
              fmt::format("'{}': key 'include_prompt' must be true or false", config_path));
        }
        result.include_prompt = include_prompt->get<bool>();
      }
      has_pooling = true;
    } else if (!type.ends_with("models.Transformer")) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}': module type '{}' is not supported (tokvec runs Transformer, Pooling, Dense and Normalize)",
          modules_path,
          type));
    }
  }
  if (!has_pooling) {
    return absl::InvalidArgumentError(fmt::format("'{}' lists no sentence_transformers Pooling module", modules_path));
  }
  if (!dense.empty()) result.dense = std::make_shared<const std::vector<SentenceDense>>(std::move(dense));
  return result;
}

int64_t DenseOutputWidth(const std::shared_ptr<const std::vector<SentenceDense>>& dense, int64_t d) {
  return dense == nullptr || dense->empty() ? d : dense->back().out_features;
}

absl::Status CheckDenseWidths(const std::vector<SentenceDense>& dense, int64_t d) {
  for (const SentenceDense& layer : dense) {
    if (layer.in_features != d) {
      return absl::InvalidArgumentError(fmt::format(
          "Dense module '{}' takes {} values (in_features) but gets vectors of {} (the {})", layer.folder,
          layer.in_features, d, &layer == &dense.front() ? "model's hidden size" : "previous Dense module's output"));
    }
    d = layer.out_features;
  }
  return absl::OkStatus();
}

}  // namespace tokvec
