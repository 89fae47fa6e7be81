#include "pipeline/sentence_dense.h"

#include <cmath>
#include <filesystem>
#include <memory>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "embeddings/safetensors.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

double Activate(DenseActivation activation, double x) {
  switch (activation) {
    case DenseActivation::kIdentity:
      return x;
    case DenseActivation::kTanh:
      return std::tanh(x);
    case DenseActivation::kRelu:
      return x > 0 ? x : 0;
    case DenseActivation::kGelu:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case DenseActivation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case DenseActivation::kSilu:
      return x / (1.0 + std::exp(-x));
  }
  return x;
}

// config[key] as a positive integer.
absl::StatusOr<int64_t> PositiveKey(const nlohmann::json& config, const char* key, const std::string& path) {
  const auto it = config.find(key);
  if (it == config.end() || !it->is_number_integer() || it->get<int64_t>() <= 0) {
    return absl::InvalidArgumentError(fmt::format("'{}': key '{}' must be a positive integer", path, key));
  }
  return it->get<int64_t>();
}

// Reads `name` of `file` as float32, checking its shape.
absl::Status ReadTensor(SafetensorsFile& file, const std::string& name, const std::vector<int64_t>& shape,
                        std::vector<float>* out) {
  if (file.Find(name) == nullptr) {
    return absl::InvalidArgumentError(fmt::format("'{}' has no tensor '{}' (the Dense layer)", file.path(), name));
  }
  TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, file.ReadFloat32(name));
  if (t.shape != shape) {
    return absl::InvalidArgumentError(fmt::format("'{}': tensor '{}' has shape [{}]; config.json's in_features and "
                                                  "out_features make it [{}]",
                                                  file.path(), name, fmt::join(t.shape, ", "),
                                                  fmt::join(shape, ", ")));
  }
  int64_t size = 1;
  for (int64_t s : shape) size *= s;
  out->assign(t.data, t.data + size);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DenseActivation> ParseDenseActivation(std::string_view class_name) {
  const size_t dot = class_name.rfind('.');
  const std::string_view name = dot == std::string_view::npos ? class_name : class_name.substr(dot + 1);
  if (name == "Identity") return DenseActivation::kIdentity;
  if (name == "Tanh") return DenseActivation::kTanh;
  if (name == "ReLU") return DenseActivation::kRelu;
  if (name == "GELU") return DenseActivation::kGelu;
  if (name == "Sigmoid") return DenseActivation::kSigmoid;
  if (name == "SiLU") return DenseActivation::kSilu;
  return absl::InvalidArgumentError(fmt::format(
      "activation '{}' is not supported; a Dense layer may use Identity, Tanh, ReLU, GELU, Sigmoid or SiLU",
      class_name));
}

absl::StatusOr<SentenceDense> LoadSentenceDense(const std::string& folder) {
  namespace fs = std::filesystem;
  SentenceDense dense;
  dense.folder = folder;
  const std::string config_path = (fs::path(folder) / "config.json").string();
  TOKVEC_ASSIGN_OR_RETURN(std::string config_text, ReadFile(config_path));
  const nlohmann::json config = nlohmann::json::parse(config_text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    return absl::InvalidArgumentError(fmt::format("'{}' is not a JSON object", config_path));
  }
  TOKVEC_ASSIGN_OR_RETURN(dense.in_features, PositiveKey(config, "in_features", config_path));
  TOKVEC_ASSIGN_OR_RETURN(dense.out_features, PositiveKey(config, "out_features", config_path));
  bool has_bias = true;
  if (const auto bias = config.find("bias"); bias != config.end()) {
    if (!bias->is_boolean()) {
      return absl::InvalidArgumentError(fmt::format("'{}': key 'bias' must be true or false", config_path));
    }
    has_bias = bias->get<bool>();
  }
  std::string activation = "torch.nn.modules.activation.Tanh";  // the module's default
  if (const auto a = config.find("activation_function"); a != config.end()) {
    if (!a->is_string()) {
      return absl::InvalidArgumentError(
          fmt::format("'{}': key 'activation_function' must be a class name", config_path));
    }
    activation = a->get<std::string>();
  }
  absl::StatusOr<DenseActivation> parsed = ParseDenseActivation(activation);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(fmt::format("'{}': {}", config_path, std::string(parsed.status().message())));
  }
  dense.activation = *parsed;

  const std::string weights_path = (fs::path(folder) / "model.safetensors").string();
  if (!fs::exists(weights_path)) {
    const bool pickle = fs::exists(fs::path(folder) / "pytorch_model.bin");
    return absl::NotFoundError(fmt::format(
        "Dense module folder '{}' has no model.safetensors{}", folder,
        pickle ? "; only safetensors is read, not PyTorch pickles (pytorch_model.bin); convert it, e.g. with "
                 "safetensors.torch.save_file(torch.load(...), 'model.safetensors')"
               : ""));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> file, SafetensorsFile::Open(weights_path));
  TOKVEC_RETURN_IF_ERROR(ReadTensor(*file, "linear.weight", {dense.out_features, dense.in_features}, &dense.weight));
  if (has_bias) TOKVEC_RETURN_IF_ERROR(ReadTensor(*file, "linear.bias", {dense.out_features}, &dense.bias));
  return dense;
}

absl::StatusOr<std::vector<float>> ApplyDense(const SentenceDense& dense, std::span<const float> x) {
  if (static_cast<int64_t>(x.size()) != dense.in_features) {
    return absl::InvalidArgumentError(fmt::format("the Dense layer in '{}' takes {} values, not {}", dense.folder,
                                                  dense.in_features, x.size()));
  }
  std::vector<float> y(static_cast<size_t>(dense.out_features));
  for (int64_t o = 0; o < dense.out_features; ++o) {
    const float* w = dense.weight.data() + o * dense.in_features;
    double sum = dense.bias.empty() ? 0.0 : dense.bias[o];
    for (int64_t i = 0; i < dense.in_features; ++i) sum += static_cast<double>(w[i]) * x[i];
    y[o] = static_cast<float>(Activate(dense.activation, sum));
  }
  return y;
}

}  // namespace tokvec
