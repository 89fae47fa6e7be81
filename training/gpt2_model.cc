#include "training/gpt2_model.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "base/status_macros.h"
#include "embeddings/positional.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "training/attention_kind_kernels.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

// Positions in infos_: wte, wpe, then kPerLayer tensors per layer, then ln_f.
constexpr int kWte = 0, kWpe = 1, kPerLayer = 12;  // gpt2 layers start at 2, encoder layers at 1
// RoBERTa (training/roberta_layout.h): word, position, token-type tables and the embedding LayerNorm, then the
// layers; after them the MLM head's dense weight, bias, LayerNorm weight, bias and the decoder bias.
constexpr int kTokenType = 2, kEmbLnW = 3, kEmbLnB = 4, kRobertaFirstLayer = 5;
enum HeadTensor { kHeadDenseW, kHeadDenseB, kHeadLnW, kHeadLnB, kHeadBias };
enum LayerTensor {
  kLn1W, kLn1B, kAttnW, kAttnB, kAttnProjW, kAttnProjB, kLn2W, kLn2B, kFcW, kFcB, kFcProjW, kFcProjB
};

// Dropout sites, mixed with the layer into each mask's seed.
enum DropoutSite : uint64_t { kAttentionSite, kAttnResidualSite, kMlpResidualSite, kEmbeddingSite };

size_t Sz(int64_t n) { return static_cast<size_t>(n); }

}  // namespace

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
  if (config.arch == Architecture::kGptNeo || config.arch == Architecture::kBert || config.decoder() ||
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

const float* Gpt2Model::Forward(const std::vector<int32_t>& inputs, int64_t B, int64_t T, int threads, float p,
                                uint64_t dropout_seed) {
  const int64_t C = config_.d_model, F = config_.d_ff, H = config_.n_heads, L = config_.n_layers, N = B * T;
  const float eps = static_cast<float>(config_.layer_norm_eps);
  Activations& a = acts_;
  if (a.B != B || a.T != T) {
    a.B = B;
    a.T = T;
    a.encoded.assign(Sz(N * C), 0.0f);
    for (auto* v : {&a.ln1, &a.atty, &a.residual2, &a.ln2, &a.residual3}) v->assign(Sz(L * N * C), 0.0f);
    for (auto* v : {&a.ln1_mean, &a.ln1_rstd, &a.ln2_mean, &a.ln2_rstd}) v->assign(Sz(L * N), 0.0f);
    a.qkv.assign(Sz(L * N * 3 * C), 0.0f);
    a.lse.assign(Sz(L * N * H), 0.0f);
    a.fch.assign(Sz(L * N * F), 0.0f);
    a.fch_act.assign(Sz(L * N * F), 0.0f);
    a.lnf.assign(Sz(N * C), 0.0f);
    a.lnf_mean.assign(Sz(N), 0.0f);
    a.lnf_rstd.assign(Sz(N), 0.0f);
    a.scratch.assign(Sz(N * C), 0.0f);
    if (roberta()) {
      for (auto* v : {&a.emb_in, &a.head_dense, &a.head_act, &a.head_out}) v->assign(Sz(N * C), 0.0f);
      for (auto* v : {&a.emb_mean, &a.emb_rstd, &a.head_mean, &a.head_rstd}) v->assign(Sz(N), 0.0f);
    }
  }
  // 1. Embeddings: gpt2 wte[ids] + wpe; encoder wte[ids]·√C + sinusoid (Vaswani et al. 2017, §3.4, §3.5); with
  //    rotary positions (either architecture) no table is added: RoPE rotates q and k in every layer;
  //    RoBERTa LN(word[ids] + position[pad + 1 + t] + token_type[0]).
  if (roberta()) {
    const int64_t first_position = config_.pad_token_id + 1;
    for (int64_t n = 0; n < N; ++n) {
      const float* tok = P(kWte) + int64_t{inputs[Sz(n)]} * C;        // [C]
      const float* pos = P(kWpe) + (first_position + n % T) * C;      // [C]
      const float* type = P(kTokenType);                              // [C] row 0
      for (int64_t c = 0; c < C; ++c) a.emb_in[Sz(n * C + c)] = tok[c] + pos[c] + type[c];
    }
    LayerNormForward(a.encoded.data(), a.emb_mean.data(), a.emb_rstd.data(), a.emb_in.data(), P(kEmbLnW),
                     P(kEmbLnB), N, C, eps, threads);
  } else if (encoder()) {
    const float scale = static_cast<float>(std::sqrt(static_cast<double>(C)));
    for (int64_t n = 0; n < N; ++n) {
      const float* tok = P(kWte) + int64_t{inputs[Sz(n)]} * C;  // [C]
      float* e = a.encoded.data() + n * C;                      // [C]
      for (int64_t c = 0; c < C; ++c) e[c] = tok[c] * scale;
      if (config_.rotary) continue;                              // positions come from RoPE in every layer
      const float* pos = sinusoid_.data() + (n % T) * C;        // [C]
      for (int64_t c = 0; c < C; ++c) e[c] += pos[c];
    }
  } else if (config_.rotary) {  // wte[ids] alone: positions come from RoPE in every layer
    for (int64_t n = 0; n < N; ++n) {
      const float* tok = P(kWte) + int64_t{inputs[Sz(n)]} * C;  // [C]
      std::copy(tok, tok + C, a.encoded.data() + n * C);
    }
  } else {
    EmbeddingForward(a.encoded.data(), inputs.data(), P(kWte), P(kWpe), B, T, C);
  }
  if (p > 0) {
    DropoutForward(a.encoded.data(), a.encoded.data(), N * C, p, DropoutSeed(dropout_seed, L, kEmbeddingSite));
  }
  // 2. The blocks.
  for (int64_t l = 0; l < L; ++l) {
    const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
    float* ln1 = a.ln1.data() + l * N * C;         // [N, C]
    float* res2 = a.residual2.data() + l * N * C;  // [N, C]
    float* ln2 = a.ln2.data() + l * N * C;         // [N, C]
    float* res3 = a.residual3.data() + l * N * C;  // [N, C]
    float* ln1_stats[2] = {a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N};
    float* ln2_stats[2] = {a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N};
    if (encoder()) {
      // post-LN: ln1 = LN1(x + attn(x)); ln2 = LN2(ln1 + ffn(ln1)), the layer's output
      const float* x = l == 0 ? a.encoded.data() : a.ln2.data() + (l - 1) * N * C;  // [N, C]
      AttentionSublayerForward(l, x, p, dropout_seed, threads);
      ResidualForward(res2, x, a.scratch.data(), N * C);
      LayerNormForward(ln1, ln1_stats[0], ln1_stats[1], res2, P(w + kLn1W), P(w + kLn1B), N, C, eps, threads);
      FeedForwardForward(l, ln1, p, dropout_seed, threads);
      ResidualForward(res3, ln1, a.scratch.data(), N * C);
      LayerNormForward(ln2, ln2_stats[0], ln2_stats[1], res3, P(w + kLn2W), P(w + kLn2B), N, C, eps, threads);
    } else {
      // pre-LN: res2 = x + attn(LN1(x)); res3 = res2 + ffn(LN2(res2)), the layer's output
      const float* x = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * N * C;  // [N, C]
      LayerNormForward(ln1, ln1_stats[0], ln1_stats[1], x, P(w + kLn1W), P(w + kLn1B), N, C, eps, threads);
      AttentionSublayerForward(l, ln1, p, dropout_seed, threads);
      ResidualForward(res2, x, a.scratch.data(), N * C);
      LayerNormForward(ln2, ln2_stats[0], ln2_stats[1], res2, P(w + kLn2W), P(w + kLn2B), N, C, eps, threads);
      FeedForwardForward(l, ln2, p, dropout_seed, threads);
      ResidualForward(res3, res2, a.scratch.data(), N * C);
    }
  }
  // 3. gpt2's final LayerNorm.
  if (encoder()) return L == 0 ? a.encoded.data() : a.ln2.data() + (L - 1) * N * C;
  const int lnf = first_layer_ + static_cast<int>(L) * kPerLayer;
  const float* last = L == 0 ? a.encoded.data() : a.residual3.data() + (L - 1) * N * C;
  LayerNormForward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), last, P(lnf), P(lnf + 1), N, C, eps,
                   threads);
  return a.lnf.data();
}

void Gpt2Model::AttentionSublayerForward(int64_t l, const float* x, float p, uint64_t dropout_seed, int threads) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, H = config_.n_heads, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  float* qkv = a.qkv.data() + l * N * 3 * C;  // [N, 3C]
  float* atty = a.atty.data() + l * N * C;    // [N, C]
  LinearForward(qkv, x, P(w + kAttnW), P(w + kAttnB), N, C, 3 * C, threads);
  if (config_.rotary) RotaryQK(qkv, a.B, a.T, C, H, *config_.rotary, /*inverse=*/false, threads);  // kept rotated
  const LayerAttention& la = layer_attention_[Sz(l)];
  float* lse = a.lse.data() + l * N * H;
  const uint64_t seed = DropoutSeed(dropout_seed, l, kAttentionSite);
  switch (la.kind.type) {
    case AttentionKindType::kLinformer:
      LinformerForward(atty, lse, qkv, P(la.linformer_e), P(la.linformer_e + 1), la.kind.rank, config_.max_len, a.B,
                       a.T, C, H, threads, p, seed, key_lengths_);
      break;
    case AttentionKindType::kLinear:
    case AttentionKindType::kPerformer:
      FeatureMapAttentionForward(atty, qkv, FeatureMap(la), a.B, a.T, C, H, threads, !encoder(), key_lengths_);
      break;
    default: {
      const std::optional<SparsePattern> pattern = Pattern(la, a.T);
      AttentionForward(atty, lse, qkv, a.B, a.T, C, H, threads, p, seed, /*causal=*/!encoder(), key_lengths_,
                       pattern ? &*pattern : nullptr);
    }
  }
  LinearForward(a.scratch.data(), atty, P(w + kAttnProjW), P(w + kAttnProjB), N, C, C, threads);
  if (p > 0) {
    DropoutForward(a.scratch.data(), a.scratch.data(), N * C, p, DropoutSeed(dropout_seed, l, kAttnResidualSite));
  }
}

void Gpt2Model::FeedForwardForward(int64_t l, const float* x, float p, uint64_t dropout_seed, int threads) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, F = config_.d_ff, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  float* fch = a.fch.data() + l * N * F;          // [N, F]
  float* fch_act = a.fch_act.data() + l * N * F;  // [N, F]
  LinearForward(fch, x, P(w + kFcW), P(w + kFcB), N, C, F, threads);
  ActivationForward(config_.activation, fch_act, fch, N * F, threads);
  LinearForward(a.scratch.data(), fch_act, P(w + kFcProjW), P(w + kFcProjB), N, F, C, threads);
  if (p > 0) {
    DropoutForward(a.scratch.data(), a.scratch.data(), N * C, p, DropoutSeed(dropout_seed, l, kMlpResidualSite));
  }
}

void Gpt2Model::AttentionSublayerBackward(int64_t l, const float* x, const float* dout, float* dx, float p,
                                          uint64_t dropout_seed, int threads, BackwardScratch& s) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, H = config_.n_heads, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  const float* qkv = a.qkv.data() + l * N * 3 * C;  // [N, 3C]
  const float* atty = a.atty.data() + l * N * C;    // [N, C]
  if (p > 0) {
    DropoutBackward(s.dropped.data(), dout, N * C, p, DropoutSeed(dropout_seed, l, kAttnResidualSite));
    dout = s.dropped.data();
  }
  LinearBackward(s.datty.data(), G(w + kAttnProjW), G(w + kAttnProjB), dout, atty, P(w + kAttnProjW), N, C, C,
                 threads);
  const LayerAttention& la = layer_attention_[Sz(l)];
  const float* lse = a.lse.data() + l * N * H;
  const uint64_t seed = DropoutSeed(dropout_seed, l, kAttentionSite);
  switch (la.kind.type) {
    case AttentionKindType::kLinformer:
      LinformerBackward(s.dqkv.data(), G(la.linformer_e), G(la.linformer_e + 1), s.datty.data(), atty, lse, qkv,
                        P(la.linformer_e), P(la.linformer_e + 1), la.kind.rank, config_.max_len, a.B, a.T, C, H,
                        threads, p, seed, key_lengths_);
      break;
    case AttentionKindType::kLinear:
    case AttentionKindType::kPerformer:
      FeatureMapAttentionBackward(s.dqkv.data(), s.datty.data(), atty, qkv, FeatureMap(la), a.B, a.T, C, H, threads,
                                  !encoder(), key_lengths_);
      break;
    default: {
      const std::optional<SparsePattern> pattern = Pattern(la, a.T);
      AttentionBackward(s.dqkv.data(), s.datty.data(), atty, lse, qkv, a.B, a.T, C, H, threads, p, seed,
                        /*causal=*/!encoder(), key_lengths_, pattern ? &*pattern : nullptr);
    }
  }
  if (config_.rotary) RotaryQK(s.dqkv.data(), a.B, a.T, C, H, *config_.rotary, /*inverse=*/true, threads);
  LinearBackward(dx, G(w + kAttnW), G(w + kAttnB), s.dqkv.data(), x, P(w + kAttnW), N, C, 3 * C, threads);
}

void Gpt2Model::FeedForwardBackward(int64_t l, const float* x, const float* dout, float* dx, float p,
                                    uint64_t dropout_seed, int threads, BackwardScratch& s) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, F = config_.d_ff, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  const float* fch = a.fch.data() + l * N * F;          // [N, F]
  const float* fch_act = a.fch_act.data() + l * N * F;  // [N, F]
  if (p > 0) {
    DropoutBackward(s.dropped.data(), dout, N * C, p, DropoutSeed(dropout_seed, l, kMlpResidualSite));
    dout = s.dropped.data();
  }
  LinearBackward(s.dact.data(), G(w + kFcProjW), G(w + kFcProjB), dout, fch_act, P(w + kFcProjW), N, F, C, threads);
  ActivationBackward(config_.activation, s.dhidden.data(), fch, s.dact.data(), N * F, threads);
  LinearBackward(dx, G(w + kFcW), G(w + kFcB), s.dhidden.data(), x, P(w + kFcW), N, C, F, threads);
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

void Gpt2Model::Backward(const std::vector<int32_t>& inputs, std::vector<float>& dout, float p,
                         uint64_t dropout_seed, int threads) {
  Activations& a = acts_;
  const int64_t B = a.B, T = a.T, C = config_.d_model, F = config_.d_ff, L = config_.n_layers, N = B * T;
  std::vector<float> dres(Sz(N * C), 0.0f);   // [N, C] d(a layer's output), then d(its input)
  std::vector<float> dres2(Sz(N * C), 0.0f);  // [N, C] d(the residual sum after attention)
  std::vector<float> dbuf(Sz(N * C), 0.0f);   // [N, C] d(a LayerNorm's output)
  BackwardScratch s{.dropped = std::vector<float>(p > 0 ? Sz(N * C) : 0), .datty = std::vector<float>(Sz(N * C)),
                    .dhidden = std::vector<float>(Sz(N * F)), .dact = std::vector<float>(Sz(N * F)),
                    .dqkv = std::vector<float>(Sz(N * 3 * C))};
  // 1. gpt2's ln_f (the encoder's output is its last block's).
  if (encoder()) {
    dres.swap(dout);
  } else {
    const int lnf = first_layer_ + static_cast<int>(L) * kPerLayer;
    const float* last = L == 0 ? a.encoded.data() : a.residual3.data() + (L - 1) * N * C;
    LayerNormBackward(dres.data(), G(lnf), G(lnf + 1), dout.data(), last, P(lnf), a.lnf_mean.data(),
                      a.lnf_rstd.data(), N, C, threads);
  }

  // 2. The blocks, last to first.
  std::vector<float> dres3(encoder() ? Sz(N * C) : 0);  // [N, C] encoder: d(ln1 + ffn(ln1)) before LN2
  for (int64_t l = L - 1; l >= 0; --l) {
    const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
    const float* ln1 = a.ln1.data() + l * N * C;
    const float* res2 = a.residual2.data() + l * N * C;
    const float* ln2 = a.ln2.data() + l * N * C;
    const float* ln1_stats[2] = {a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N};
    const float* ln2_stats[2] = {a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N};
    if (encoder()) {
      const float* x = l == 0 ? a.encoded.data() : a.ln2.data() + (l - 1) * N * C;
      const float* res3 = a.residual3.data() + l * N * C;
      // out = LN2(res3), res3 = ln1 + ffn(ln1): d ln1 = dres3 + ffn'ᵀ dres3
      std::fill(dres3.begin(), dres3.end(), 0.0f);
      LayerNormBackward(dres3.data(), G(w + kLn2W), G(w + kLn2B), dres.data(), res3, P(w + kLn2W), ln2_stats[0],
                        ln2_stats[1], N, C, threads);
      FeedForwardBackward(l, ln1, dres3.data(), dbuf.data(), p, dropout_seed, threads, s);
      for (int64_t i = 0; i < N * C; ++i) dbuf[Sz(i)] += dres3[Sz(i)];
      // ln1 = LN1(res2), res2 = x + attn(x): d x = dres2 + attn'ᵀ dres2
      std::fill(dres2.begin(), dres2.end(), 0.0f);
      LayerNormBackward(dres2.data(), G(w + kLn1W), G(w + kLn1B), dbuf.data(), res2, P(w + kLn1W), ln1_stats[0],
                        ln1_stats[1], N, C, threads);
      AttentionSublayerBackward(l, x, dres2.data(), dbuf.data(), p, dropout_seed, threads, s);
      for (int64_t i = 0; i < N * C; ++i) dres[Sz(i)] = dres2[Sz(i)] + dbuf[Sz(i)];
    } else {
      const float* x = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * N * C;
      // res3 = res2 + ffn(LN2(res2)): d res2 = dres + LN2'ᵀ ffn'ᵀ dres
      FeedForwardBackward(l, ln2, dres.data(), dbuf.data(), p, dropout_seed, threads, s);
      dres2 = dres;
      LayerNormBackward(dres2.data(), G(w + kLn2W), G(w + kLn2B), dbuf.data(), res2, P(w + kLn2W), ln2_stats[0],
                        ln2_stats[1], N, C, threads);
      // res2 = x + attn(LN1(x)): d x = dres2 + LN1'ᵀ attn'ᵀ dres2
      AttentionSublayerBackward(l, ln1, dres2.data(), dbuf.data(), p, dropout_seed, threads, s);
      dres = dres2;
      LayerNormBackward(dres.data(), G(w + kLn1W), G(w + kLn1B), dbuf.data(), x, P(w + kLn1W), ln1_stats[0],
                        ln1_stats[1], N, C, threads);
    }
  }
  // 3. The embedding tables (through the embedding dropout).
  if (p > 0) DropoutBackward(dres.data(), dres.data(), N * C, p, DropoutSeed(dropout_seed, L, kEmbeddingSite));
  if (roberta()) {
    std::vector<float> demb(Sz(N * C), 0.0f);  // [N, C] d(word + position + token type)
    LayerNormBackward(demb.data(), G(kEmbLnW), G(kEmbLnB), dres.data(), a.emb_in.data(), P(kEmbLnW),
                      a.emb_mean.data(), a.emb_rstd.data(), N, C, threads);
    const int64_t first_position = config_.pad_token_id + 1;
    for (int64_t n = 0; n < N; ++n) {  // rows in order: the same sums for any thread count
      float* word = G(kWte) + int64_t{inputs[Sz(n)]} * C;
      float* pos = G(kWpe) + (first_position + n % T) * C;
      float* type = G(kTokenType);
      for (int64_t c = 0; c < C; ++c) {
        const float d = demb[Sz(n * C + c)];
        word[c] += d;
        pos[c] += d;
        type[c] += d;
      }
    }
  } else if (encoder()) {
    const float scale = static_cast<float>(std::sqrt(static_cast<double>(C)));
    float* dwte = G(kWte);
    for (int64_t n = 0; n < N; ++n) {
      float* row = dwte + int64_t{inputs[Sz(n)]} * C;  // [C]
      for (int64_t c = 0; c < C; ++c) row[c] += dres[Sz(n * C + c)] * scale;
    }
  } else if (config_.rotary) {
    float* dwte = G(kWte);
    for (int64_t n = 0; n < N; ++n) {  // rows in order: the same sums for any thread count
      float* row = dwte + int64_t{inputs[Sz(n)]} * C;  // [C]
      for (int64_t c = 0; c < C; ++c) row[c] += dres[Sz(n * C + c)];
    }
  } else {
    EmbeddingBackward(G(kWte), G(kWpe), dres.data(), inputs.data(), B, T, C);
  }
}

}  // namespace tokvec::training
