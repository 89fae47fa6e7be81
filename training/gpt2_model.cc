#include "training/gpt2_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "base/status_macros.h"
#include "embeddings/positional.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "training/gpt2_model_internal.h"
#include "training/kernels.h"

namespace tokvec::training {

void AppendParameter(std::vector<ParameterInfo>& infos, std::string name, std::vector<int64_t> shape) {
  int64_t size = 1;
  for (int64_t s : shape) size *= s;
  const int64_t offset = infos.empty() ? 0 : infos.back().offset + infos.back().size;
  infos.push_back({std::move(name), std::move(shape), offset, size});
}

std::vector<ParameterInfo> Gpt2Parameters(const ModelConfig& config) {
  const int64_t C = config.d_model, F = config.d_ff, V = config.vocab_size;
  std::vector<ParameterInfo> infos;
  auto add = [&infos](std::string name, std::vector<int64_t> shape) {
    AppendParameter(infos, std::move(name), std::move(shape));
  };
  const bool gpt2 = config.arch == Architecture::kGpt2;
  add("wte.weight", {V, C});
  if (gpt2 && !config.rotary) add("wpe.weight", {config.max_len, C});
  for (int64_t l = 0; l < config.n_layers; ++l) {
    const std::string p = fmt::format("h.{}.", l);
    add(p + "ln_1.weight", {C});
    add(p + "ln_1.bias", {C});
    add(p + "attn.c_attn.weight", {C, 3 * C});
    add(p + "attn.c_attn.bias", {3 * C});
    add(p + "attn.c_proj.weight", {C, C});
    add(p + "attn.c_proj.bias", {C});
    add(p + "ln_2.weight", {C});
    add(p + "ln_2.bias", {C});
    add(p + "mlp.c_fc.weight", {C, F});
    add(p + "mlp.c_fc.bias", {F});
    add(p + "mlp.c_proj.weight", {F, C});
    add(p + "mlp.c_proj.bias", {C});
  }
  if (gpt2) {
    add("ln_f.weight", {C});
    add("ln_f.bias", {C});
  }
  // Linformer's E and F after everything else, so the per-layer tensors keep a fixed stride.
  for (size_t l = 0; l < config.attention.size(); ++l) {
    const AttentionKind& kind = config.attention[l];
    if (kind.type != AttentionKindType::kLinformer) continue;
    add(fmt::format("h.{}.attn.linformer_e", l), {kind.rank, config.max_len});
    add(fmt::format("h.{}.attn.linformer_f", l), {kind.rank, config.max_len});
  }
  return infos;
}

absl::StatusOr<std::unique_ptr<Gpt2Model>> Gpt2Model::Load(const std::string& dir) {
  const std::filesystem::path root(dir);
  TOKVEC_ASSIGN_OR_RETURN(ModelConfig config, LoadModelConfig((root / "config.json").string()));
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> weights,
                          SafetensorsFile::Open((root / "model.safetensors").string()));
  return FromWeights(config, *weights);
}

absl::StatusOr<std::unique_ptr<Gpt2Model>> Gpt2Model::FromWeights(const ModelConfig& config,
                                                                  SafetensorsFile& weights, uint64_t head_seed) {
  if (config.model_type == "mpnet") {
    return absl::UnimplementedError(
        "training runs gpt2, encoder and roberta models; this mpnet model (relative position bias) can be embedded "
        "and attended but not trained yet");
  }
  if (config.arch == Architecture::kGptNeo || config.arch == Architecture::kBert || config.decoder() ||
      config.arch == Architecture::kModernBert ||
      (config.arch == Architecture::kRoberta && config.has_attention_kinds())) {
    return absl::UnimplementedError(fmt::format(
        "training runs gpt2 and encoder models with any kind of attention and roberta models with full attention; "
        "this {} model{} can be embedded and attended but not trained yet",
        config.model_type,
        config.arch == Architecture::kRoberta ? " (other kinds of attention: config \"attention\")" : ""));
  }
  auto model = std::unique_ptr<Gpt2Model>(new Gpt2Model());
  model->config_ = config;
  if (config.arch == Architecture::kRoberta) {
    model->first_layer_ = kRobertaFirstLayer;
    model->infos_ = RobertaParameters(config);
    const int64_t size = model->infos_.back().offset + model->infos_.back().size;
    model->params_.assign(Sz(size), 0.0f);
    model->grads_.assign(Sz(size), 0.0f);
    TOKVEC_ASSIGN_OR_RETURN(model->head_initialized_,
                            LoadRobertaWeights(model->infos_, config, weights, head_seed, model->params_));
    TOKVEC_RETURN_IF_ERROR(model->BindAttentionKinds());  // every layer full (refused above otherwise)
    return model;
  }
  if (config.arch == Architecture::kEncoder || config.rotary) model->first_layer_ = 1;  // no wpe
  if (config.arch == Architecture::kEncoder && !config.rotary) {
    TOKVEC_ASSIGN_OR_RETURN(Matrix table, SinusoidalTable(config.max_len, config.d_model));
    model->sinusoid_ = std::move(table.storage());
  }
  model->infos_ = Gpt2Parameters(config);
  const int64_t offset = model->infos_.back().offset + model->infos_.back().size;
  model->params_.assign(Sz(offset), 0.0f);
  model->grads_.assign(Sz(offset), 0.0f);
  for (const ParameterInfo& info : model->infos_) {
    std::string found = info.name;
    if (weights.Find(found) == nullptr) found = "transformer." + info.name;
    if (weights.Find(found) == nullptr) {
      return absl::NotFoundError(fmt::format("{}: no tensor '{}' (also tried 'transformer.{}')", weights.path(),
                                             info.name, info.name));
    }
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor tensor, weights.ReadFloat32(found));
    if (tensor.shape != info.shape) {
      return absl::InvalidArgumentError(fmt::format("{}: tensor '{}' has shape [{}], expected [{}] from config.json",
                                                    weights.path(), found, fmt::join(tensor.shape, ", "),
                                                    fmt::join(info.shape, ", ")));
    }
    std::memcpy(model->params_.data() + info.offset, tensor.data, Sz(info.size) * sizeof(float));
  }
  TOKVEC_RETURN_IF_ERROR(model->BindAttentionKinds());
  return model;
}

absl::Status Gpt2Model::BindAttentionKinds() {
  const ModelConfig& c = config_;
  layer_attention_.assign(Sz(c.n_layers), LayerAttention{});
  for (size_t l = 0; l < c.attention.size() && l < layer_attention_.size(); ++l) {
    LayerAttention& la = layer_attention_[l];
    la.kind = c.attention[l];
    la.seed = c.attention_seed + l;  // as inference (models/model.cc)
    if (la.kind.type == AttentionKindType::kPerformer) {
      TOKVEC_ASSIGN_OR_RETURN(Matrix features, PerformerFeatures(la.kind.features, c.head_dim(), la.seed));
      la.performer_features = std::make_shared<const Matrix>(std::move(features));
    }
    if (la.kind.type == AttentionKindType::kLinformer) {
      const ParameterInfo* e = Find(fmt::format("h.{}.attn.linformer_e", l));
      la.linformer_e = static_cast<int>(e - infos_.data());
    }
  }
  return absl::OkStatus();
}

std::optional<SparsePattern> Gpt2Model::Pattern(const LayerAttention& la, int64_t T) const {
  if (!la.kind.sparse()) return std::nullopt;
  absl::StatusOr<SparsePattern> pattern = SparsePattern::Make(la.kind, T, /*causal=*/!encoder(), la.seed);
  if (!pattern.ok()) return std::nullopt;  // only for a kind that is not sparse or T < 0, both excluded above
  return *std::move(pattern);
}

KernelFeatureMap Gpt2Model::FeatureMap(const LayerAttention& la) const {
  return {.type = la.kind.type,
          .features = la.performer_features.get(),
          .scale = 1.0f / std::sqrt(static_cast<float>(config_.head_dim()))};
}

const ParameterInfo* Gpt2Model::Find(std::string_view name) const {
  for (const ParameterInfo& info : infos_) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

void Gpt2Model::ZeroGrad() { std::fill(grads_.begin(), grads_.end(), 0.0f); }

std::vector<NamedTensor> Gpt2Model::Named(const std::vector<float>& buffer, std::string_view prefix) const {
  std::vector<NamedTensor> tensors;
  for (const ParameterInfo& info : infos_) {
    tensors.push_back({std::string(prefix) + info.name, info.shape, buffer.data() + info.offset});
  }
  return tensors;
}

std::vector<HfTensor> Gpt2Model::CheckpointTensors(const std::vector<float>& buffer) const {
  if (roberta()) return RobertaCheckpointTensors(infos_, config_, buffer);
  std::vector<HfTensor> tensors;
  for (const ParameterInfo& info : infos_) {
    tensors.push_back({info.name, info.shape,
                       std::vector<float>(buffer.begin() + info.offset, buffer.begin() + info.offset + info.size)});
  }
  return tensors;
}

absl::Status Gpt2Model::Save(const std::string& path) const {
  if (!roberta()) return WriteSafetensors(path, Named(params_), {{"format", "pt"}});
  const std::vector<HfTensor> tensors = CheckpointTensors(params_);
  std::vector<NamedTensor> named;
  for (const HfTensor& t : tensors) named.push_back({t.name, t.shape, t.values.data()});
  return WriteSafetensors(path, named, {{"format", "pt"}});
}

absl::Status Gpt2Model::CheckBatch(const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets,
                                   int64_t B, int64_t T, std::span<const int32_t> key_lengths) const {
  if (!key_lengths.empty()) {
    if (static_cast<int64_t>(key_lengths.size()) != B) {
      return absl::InvalidArgumentError(fmt::format("{} key lengths for a batch of {}", key_lengths.size(), B));
    }
    for (int32_t n : key_lengths) {
      if (n < 1 || n > T) return absl::InvalidArgumentError(fmt::format("key length {} outside [1, {}]", n, T));
    }
  }
  if (B <= 0 || T <= 0) return absl::InvalidArgumentError(fmt::format("empty batch: B = {}, T = {}", B, T));
  if (T > config_.max_len) {
    return absl::InvalidArgumentError(
        fmt::format("sequence length {} exceeds the model's n_positions {}", T, config_.max_len));
  }
  if (static_cast<int64_t>(inputs.size()) != B * T ||
      (!targets.empty() && static_cast<int64_t>(targets.size()) != B * T)) {
    return absl::InvalidArgumentError(fmt::format("batch holds {} inputs and {} targets, expected B·T = {}",
                                                  inputs.size(), targets.size(), B * T));
  }
  for (int32_t id : inputs) {
    if (id < 0 || id >= config_.vocab_size) {
      return absl::InvalidArgumentError(
          fmt::format("token id {} is outside the model's vocabulary [0, {})", id, config_.vocab_size));
    }
  }
  for (int32_t id : targets) {
    if (id != kIgnoreIndex && (id < 0 || id >= config_.vocab_size)) {
      return absl::InvalidArgumentError(
          fmt::format("target id {} is outside the model's vocabulary [0, {})", id, config_.vocab_size));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<LossSum> Gpt2Model::Evaluate(const std::vector<int32_t>& inputs,
                                            const std::vector<int32_t>& targets, int64_t B, int64_t T,
                                            int threads, std::span<const int32_t> key_lengths) {
  TOKVEC_RETURN_IF_ERROR(CheckBatch(inputs, targets, B, T, key_lengths));
  key_lengths_ = key_lengths.empty() ? nullptr : key_lengths.data();
  const float* out = Forward(inputs, B, T, threads, 0.0f, 0);
  LossSum loss;
  loss.sum = LmHeadLoss(out, targets.data(), 0.0f, nullptr, &loss.count, threads);
  return loss;
}

absl::StatusOr<LossSum> Gpt2Model::ForwardBackward(const std::vector<int32_t>& inputs,
                                                   const std::vector<int32_t>& targets, int64_t B, int64_t T,
                                                   float loss_scale, int threads, uint64_t dropout_seed,
                                                   std::span<const int32_t> key_lengths) {
  TOKVEC_RETURN_IF_ERROR(CheckBatch(inputs, targets, B, T, key_lengths));
  key_lengths_ = key_lengths.empty() ? nullptr : key_lengths.data();
  const int64_t C = config_.d_model, N = B * T;
  const int64_t valid = std::count_if(targets.begin(), targets.end(), [](int32_t t) { return t != kIgnoreIndex; });
  const float p = dropout_;
  const float* out = Forward(inputs, B, T, threads, p, dropout_seed);  // [N, C], the LM head's input
  // LM head + cross-entropy: d(loss_scale · mean)/dlogits, then dout [N, C] and dwte.
  std::vector<float> dout(Sz(N * C), 0.0f);
  const float grad_scale = valid > 0 ? loss_scale / static_cast<float>(valid) : 0.0f;
  LossSum loss;
  loss.sum = LmHeadLoss(out, targets.data(), grad_scale, dout.data(), &loss.count, threads);
  Backward(inputs, dout, p, dropout_seed, threads);
  return loss;
}

double Gpt2Model::LmHeadLoss(const float* out, const int32_t* targets, float grad_scale, float* dout,
                             int64_t* count, int threads) {
  const int64_t C = config_.d_model, V = config_.vocab_size, N = acts_.B * acts_.T;
  if (!roberta()) {
    return CrossEntropyForwardBackward(out, P(kWte), targets, N, C, V, grad_scale, dout,
                                       dout != nullptr ? G(kWte) : nullptr, count, threads);
  }
  const int head = first_layer_ + static_cast<int>(config_.n_layers) * kPerLayer;
  RobertaHeadForward(out, threads);
  if (dout == nullptr) {
    return CrossEntropyForwardBackward(acts_.head_out.data(), P(kWte), targets, N, C, V, 0.0f, nullptr, nullptr,
                                       count, threads, P(head + kHeadBias));
  }
  std::vector<float> dhead(Sz(N * C), 0.0f);  // [N, C] d(head_out)
  const double sum = CrossEntropyForwardBackward(acts_.head_out.data(), P(kWte), targets, N, C, V, grad_scale,
                                                 dhead.data(), G(kWte), count, threads, P(head + kHeadBias),
                                                 G(head + kHeadBias));
  RobertaHeadBackward(out, dhead.data(), dout, threads);
  return sum;
}

void Gpt2Model::RobertaHeadForward(const float* hidden, int threads) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, N = a.B * a.T;
  const int head = first_layer_ + static_cast<int>(config_.n_layers) * kPerLayer;
  LinearForward(a.head_dense.data(), hidden, P(head + kHeadDenseW), P(head + kHeadDenseB), N, C, C, threads);
  ActivationForward(Activation::kGeluExact, a.head_act.data(), a.head_dense.data(), N * C, threads);
  LayerNormForward(a.head_out.data(), a.head_mean.data(), a.head_rstd.data(), a.head_act.data(), P(head + kHeadLnW),
                   P(head + kHeadLnB), N, C, static_cast<float>(config_.layer_norm_eps), threads);
}

void Gpt2Model::RobertaHeadBackward(const float* hidden, float* dhead, float* dhidden, int threads) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, N = a.B * a.T;
  const int head = first_layer_ + static_cast<int>(config_.n_layers) * kPerLayer;
  std::vector<float> dact(Sz(N * C), 0.0f), ddense(Sz(N * C), 0.0f);
  LayerNormBackward(dact.data(), G(head + kHeadLnW), G(head + kHeadLnB), dhead, a.head_act.data(), P(head + kHeadLnW),
                    a.head_mean.data(), a.head_rstd.data(), N, C, threads);
  ActivationBackward(Activation::kGeluExact, ddense.data(), a.head_dense.data(), dact.data(), N * C, threads);
  LinearBackward(dhidden, G(head + kHeadDenseW), G(head + kHeadDenseB), ddense.data(), hidden, P(head + kHeadDenseW),
                 N, C, C, threads);
}

absl::StatusOr<LossSum> Gpt2Model::ForwardBackwardHidden(const std::vector<int32_t>& inputs, int64_t B, int64_t T,
                                                         int threads, uint64_t dropout_seed,
                                                         std::span<const int32_t> key_lengths,
                                                         const HiddenHead& head) {
  TOKVEC_RETURN_IF_ERROR(CheckBatch(inputs, {}, B, T, key_lengths));
  key_lengths_ = key_lengths.empty() ? nullptr : key_lengths.data();
  const float p = dropout_;
  const float* hidden = Forward(inputs, B, T, threads, p, dropout_seed);  // [N, C]
  std::vector<float> dhidden(Sz(B * T * config_.d_model), 0.0f);
  TOKVEC_ASSIGN_OR_RETURN(LossSum loss, head(hidden, dhidden.data()));
  Backward(inputs, dhidden, p, dropout_seed, threads);
  return loss;
}

absl::StatusOr<LossSum> Gpt2Model::EvaluateHidden(const std::vector<int32_t>& inputs, int64_t B, int64_t T,
                                                  int threads, std::span<const int32_t> key_lengths,
                                                  const HiddenHead& head) {
  TOKVEC_RETURN_IF_ERROR(CheckBatch(inputs, {}, B, T, key_lengths));
  key_lengths_ = key_lengths.empty() ? nullptr : key_lengths.data();
  return head(Forward(inputs, B, T, threads, 0.0f, 0), nullptr);
}

}  // namespace tokvec::training
