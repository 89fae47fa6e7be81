#include "models/random_weights.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>

#include "embeddings/random_init.h"
#include "embeddings/safetensors.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// The tensors, drawn in the order the header states; WriteRandomWeights checks the size first.
absl::Status WriteRandomWeightsUnchecked(const ModelConfig& config, uint64_t seed, const TokenRows& token_rows,
                                         const std::string& path) {
  NormalSampler sampler(seed);
  const int64_t d = config.d_model, f = config.d_ff;
  const float stddev = 0.02f;
  const float residual_stddev = static_cast<float>(0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layers)));
  std::vector<std::unique_ptr<std::vector<float>>> storage;
  std::vector<NamedTensor> tensors;
  auto add = [&](std::string name, std::vector<int64_t> shape, float fill, float sample_stddev) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    auto values = std::make_unique<std::vector<float>>(static_cast<size_t>(n), fill);
    if (sample_stddev > 0) sampler.Fill(*values, 0.0f, sample_stddev);
    tensors.push_back({std::move(name), std::move(shape), values->data()});
    storage.push_back(std::move(values));
  };
  add("wte.weight", {config.vocab_size, d}, 0, stddev);
  for (const auto& [id, vector] : token_rows) {  // [V, D] rows from --token-embeddings
    std::copy(vector, vector + d, storage.back()->data() + id * d);
  }
  if (config.arch == Architecture::kGpt2 && !config.rotary) add("wpe.weight", {config.max_len, d}, 0, stddev);
  for (int64_t i = 0; i < config.n_layers; ++i) {
    const std::string p = fmt::format("h.{}.", i);
    add(p + "ln_1.weight", {d}, 1, 0);
    add(p + "ln_1.bias", {d}, 0, 0);
    add(p + "attn.c_attn.weight", {d, 3 * d}, 0, stddev);
    add(p + "attn.c_attn.bias", {3 * d}, 0, 0);
    add(p + "attn.c_proj.weight", {d, d}, 0, residual_stddev);
    add(p + "attn.c_proj.bias", {d}, 0, 0);
    add(p + "ln_2.weight", {d}, 1, 0);
    add(p + "ln_2.bias", {d}, 0, 0);
    add(p + "mlp.c_fc.weight", {d, f}, 0, stddev);
    add(p + "mlp.c_fc.bias", {f}, 0, 0);
    add(p + "mlp.c_proj.weight", {f, d}, 0, residual_stddev);
    add(p + "mlp.c_proj.bias", {d}, 0, 0);
    if (static_cast<size_t>(i) < config.attention.size() &&
        config.attention[static_cast<size_t>(i)].type == AttentionKindType::kLinformer) {
      // Linformer's E, F [K, N]: k' = E[:, :T]·k sums T rows, so entries of 1/√N keep k' at k's scale.
      const int64_t rank = config.attention[static_cast<size_t>(i)].rank;
      const float projection_stddev = static_cast<float>(1.0 / std::sqrt(static_cast<double>(config.max_len)));
      add(p + "attn.linformer_e", {rank, config.max_len}, 0, projection_stddev);
      add(p + "attn.linformer_f", {rank, config.max_len}, 0, projection_stddev);
    }
  }
  if (config.arch == Architecture::kGpt2) {
    add("ln_f.weight", {d}, 1, 0);
    add("ln_f.bias", {d}, 0, 0);
  }
  return WriteSafetensors(path, tensors,
                          {{"format", "pt"}, {"tokvec_seed", std::to_string(seed)},
                           {"tokvec_init", "normal(0, 0.02), residual projections 0.02/sqrt(2L)"}});
}

}  // namespace

// GPT-2-initialised weights to `path` (see the file comment).
absl::Status WriteRandomWeights(const ModelConfig& config, uint64_t seed, const TokenRows& token_rows,
                                const std::string& path) {
  // 1. Refuse sizes that cannot be held in memory before allocating anything.
  const double d = static_cast<double>(config.d_model), f = static_cast<double>(config.d_ff);
  const double positions =
      config.arch == Architecture::kGpt2 && !config.rotary ? static_cast<double>(config.max_len) : 0.0;
  double floats = (static_cast<double>(config.vocab_size) + positions) * d +
                  static_cast<double>(config.n_layers) * (4 * d * d + 2 * d * f + 9 * d + f);
  for (const AttentionKind& kind : config.attention) {  // linformer E and F
    floats += 2.0 * static_cast<double>(kind.rank) * static_cast<double>(config.max_len);
  }
  constexpr double kMaxFloats = 4.0e9;  // 16 GB of float32
  if (floats > kMaxFloats) {
    return absl::ResourceExhaustedError(fmt::format(
        "the model would have {:.3g} parameters ({:.1f} GB); tokvec init stops at {:.0f} GB", floats,
        floats * 4 / 1e9, kMaxFloats * 4 / 1e9));
  }
  try {
    return WriteRandomWeightsUnchecked(config, seed, token_rows, path);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        fmt::format("out of memory creating {:.3g} parameters ({:.1f} GB)", floats, floats * 4 / 1e9));
  }
}

}  // namespace tokvec
