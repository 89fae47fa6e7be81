#include "training/roberta_layout.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "base/status_macros.h"
#include "embeddings/random_init.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "training/gpt2_model.h"

namespace tokvec::training {
namespace {

constexpr std::string_view kTransposed = "weightT";  // buffer name suffix of a transposed nn.Linear weight
constexpr std::string_view kQkv = "attention.self.qkv.";

size_t Sz(int64_t n) { return static_cast<size_t>(n); }

std::string Layer(int64_t l) { return fmt::format("encoder.layer.{}.", l); }

bool EndsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

// The checkpoint name of a buffer tensor ("...dense.weightT" -> "...dense.weight").
std::string CheckpointName(std::string_view name) {
  if (EndsWith(name, kTransposed)) return std::string(name.substr(0, name.size() - 1));
  return std::string(name);
}

// [rows, cols] -> [cols, rows].
void Transpose(const float* in, int64_t rows, int64_t cols, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
  }
}

// The checkpoint's tensor `name`, tried as it is and with the "roberta." prefix; checked against `shape`.
absl::StatusOr<FloatTensor> Read(SafetensorsFile& weights, const std::string& name,
                                 const std::vector<int64_t>& shape) {
  std::string found = name;
  if (weights.Find(found) == nullptr) found = "roberta." + name;
  if (weights.Find(found) == nullptr) {
    return absl::NotFoundError(
        fmt::format("{}: no tensor '{}' (also tried 'roberta.{}')", weights.path(), name, name));
  }
  TOKVEC_ASSIGN_OR_RETURN(FloatTensor tensor, weights.ReadFloat32(found));
  if (tensor.shape != shape) {
    return absl::InvalidArgumentError(fmt::format("{}: tensor '{}' has shape [{}], expected [{}] from config.json",
                                                  weights.path(), found, fmt::join(tensor.shape, ", "),
                                                  fmt::join(shape, ", ")));
  }
  return tensor;
}

}  // namespace

std::vector<ParameterInfo> RobertaParameters(const ModelConfig& config) {
  const int64_t C = config.d_model, F = config.d_ff, V = config.vocab_size;
  std::vector<ParameterInfo> infos;
  auto add = [&infos](std::string name, std::vector<int64_t> shape) {
    AppendParameter(infos, std::move(name), std::move(shape));
  };
  add("embeddings.word_embeddings.weight", {V, C});
  add("embeddings.position_embeddings.weight", {config.max_position_rows, C});
  add("embeddings.token_type_embeddings.weight", {config.type_vocab_size, C});
  add("embeddings.LayerNorm.weight", {C});
  add("embeddings.LayerNorm.bias", {C});
  for (int64_t l = 0; l < config.n_layers; ++l) {
    const std::string p = Layer(l);
    add(p + "attention.output.LayerNorm.weight", {C});
    add(p + "attention.output.LayerNorm.bias", {C});
    add(p + std::string(kQkv) + std::string(kTransposed), {C, 3 * C});
    add(p + std::string(kQkv) + "bias", {3 * C});
    add(p + "attention.output.dense." + std::string(kTransposed), {C, C});
    add(p + "attention.output.dense.bias", {C});
    add(p + "output.LayerNorm.weight", {C});
    add(p + "output.LayerNorm.bias", {C});
    add(p + "intermediate.dense." + std::string(kTransposed), {C, F});
    add(p + "intermediate.dense.bias", {F});
    add(p + "output.dense." + std::string(kTransposed), {F, C});
    add(p + "output.dense.bias", {C});
  }
  add("lm_head.dense." + std::string(kTransposed), {C, C});
  add("lm_head.dense.bias", {C});
  add("lm_head.layer_norm.weight", {C});
  add("lm_head.layer_norm.bias", {C});
  add("lm_head.bias", {V});
  return infos;
}

absl::StatusOr<bool> LoadRobertaWeights(const std::vector<ParameterInfo>& infos, const ModelConfig& config,
                                        SafetensorsFile& weights, uint64_t head_seed, std::vector<float>& params) {
  const int64_t C = config.d_model;
  const bool has_head = weights.Find("lm_head.bias") != nullptr || weights.Find("lm_head.dense.weight") != nullptr;
  for (const ParameterInfo& info : infos) {
    float* out = params.data() + info.offset;
    const bool head = info.name.starts_with("lm_head.");
    if (head && !has_head) {
      // transformers' _init_weights: Linear weights normal(0, initializer_range), biases 0, LayerNorm 1 / 0.
      std::fill(out, out + info.size, info.name == "lm_head.layer_norm.weight" ? 1.0f : 0.0f);
      if (EndsWith(info.name, kTransposed)) {
        NormalSampler(head_seed).Fill(std::span<float>(out, Sz(info.size)), 0.0f, 0.02f);
      }
      continue;
    }
    if (info.name.find(kQkv) != std::string::npos) {
      // q | k | v, each nn.Linear [C, C] + [C], into one [C, 3C] + [3C].
      const std::string prefix = info.name.substr(0, info.name.find(kQkv)) + "attention.self.";
      const bool bias = EndsWith(info.name, "bias");
      const char* parts[] = {"query", "key", "value"};
      for (int part = 0; part < 3; ++part) {
        const std::string name = prefix + parts[part] + (bias ? ".bias" : ".weight");
        TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, Read(weights, name, bias ? std::vector<int64_t>{C}
                                                                          : std::vector<int64_t>{C, C}));
        if (bias) {
          std::copy_n(t.data, C, out + part * C);
          continue;
        }
        for (int64_t o = 0; o < C; ++o) {  // W[o, i] -> buffer[i, part·C + o]
          for (int64_t i = 0; i < C; ++i) out[i * 3 * C + part * C + o] = t.data[o * C + i];
        }
      }
      continue;
    }
    if (EndsWith(info.name, kTransposed)) {
      const int64_t in = info.shape[0], out_dim = info.shape[1];
      TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, Read(weights, CheckpointName(info.name), {out_dim, in}));
      Transpose(t.data, out_dim, in, out);
      continue;
    }
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, Read(weights, info.name, info.shape));
    std::memcpy(out, t.data, Sz(info.size) * sizeof(float));
  }
  return !has_head;
}

std::vector<HfTensor> RobertaCheckpointTensors(const std::vector<ParameterInfo>& infos, const ModelConfig& config,
                                               const std::vector<float>& buffer) {
  const int64_t C = config.d_model;
  std::vector<HfTensor> tensors;
  auto body = [](const std::string& name) { return name.starts_with("lm_head.") ? name : "roberta." + name; };
  for (const ParameterInfo& info : infos) {
    const float* in = buffer.data() + info.offset;
    if (info.name.find(kQkv) != std::string::npos) {
      const std::string prefix = info.name.substr(0, info.name.find(kQkv)) + "attention.self.";
      const bool bias = EndsWith(info.name, "bias");
      const char* parts[] = {"query", "key", "value"};
      for (int part = 0; part < 3; ++part) {
        HfTensor t{body(prefix + parts[part] + (bias ? ".bias" : ".weight")),
                   bias ? std::vector<int64_t>{C} : std::vector<int64_t>{C, C}, {}};
        t.values.resize(Sz(bias ? C : C * C));
        if (bias) {
          std::copy_n(in + part * C, C, t.values.data());
        } else {
          for (int64_t o = 0; o < C; ++o) {
            for (int64_t i = 0; i < C; ++i) t.values[Sz(o * C + i)] = in[i * 3 * C + part * C + o];
          }
        }
        tensors.push_back(std::move(t));
      }
      continue;
    }
    if (EndsWith(info.name, kTransposed)) {
      const int64_t rows = info.shape[0], cols = info.shape[1];  // buffer [in, out] -> checkpoint [out, in]
      HfTensor t{body(CheckpointName(info.name)), {cols, rows}, std::vector<float>(Sz(info.size))};
      Transpose(in, rows, cols, t.values.data());
      tensors.push_back(std::move(t));
      continue;
    }
    tensors.push_back({body(info.name), info.shape, std::vector<float>(in, in + info.size)});
  }
  return tensors;
}

}  // namespace tokvec::training
