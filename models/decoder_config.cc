#include "models/decoder_config.h"

#include <cmath>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

using nlohmann::json;

// One config.json being read: typed look-ups whose errors name the file and the key.
class DecoderKeys {
 public:
  DecoderKeys(const json& j, std::string_view path) : j_(j), path_(path) {}

  absl::Status Error(std::string_view key, const std::string& what) const {
    return absl::InvalidArgumentError(fmt::format("config '{}': key '{}' {}", path_, key, what));
  }

  // A present, non-null value, or nullptr.
  const json* Find(std::string_view key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }

  // A positive integer; `fallback` when absent or null (0: the key is required).
  absl::StatusOr<int64_t> Count(std::string_view key, int64_t fallback = 0) const {
    const json* v = Find(key);
    if (v == nullptr) {
      if (fallback > 0) return fallback;
      return Error(key, "is missing");
    }
    if (!v->is_number_integer() || v->get<int64_t>() <= 0 || v->get<int64_t>() > (int64_t{1} << 40)) {
      return Error(key, fmt::format("must be a positive integer, not {}", v->dump()));
    }
    return v->get<int64_t>();
  }

  // A finite number in (low, high); `fallback` when absent or null (nullopt: required).
  absl::StatusOr<double> Number(std::string_view key, double low, double high,
                                std::optional<double> fallback = std::nullopt) const {
    const json* v = Find(key);
    if (v == nullptr) {
      if (fallback) return *fallback;
      return Error(key, "is missing");
    }
    if (!v->is_number() || !(v->get<double>() > low && v->get<double>() < high)) {
      return Error(key, fmt::format("must be a number in ({}, {}), not {}", low, high, v->dump()));
    }
    return v->get<double>();
  }

  absl::StatusOr<bool> Flag(std::string_view key) const {
    const json* v = Find(key);
    if (v == nullptr) return false;
    if (!v->is_boolean()) return Error(key, fmt::format("must be true or false, not {}", v->dump()));
    return v->get<bool>();
  }

 private:
  const json& j_;
  std::string_view path_;
};

}  // namespace

std::optional<Architecture> DecoderArchitecture(std::string_view model_type) {
  if (model_type == "llama") return Architecture::kLlama;
  if (model_type == "qwen2") return Architecture::kQwen2;
  if (model_type == "qwen3") return Architecture::kQwen3;
  return std::nullopt;
}

absl::StatusOr<ModelConfig> ParseDecoderKeys(const json& j, ModelConfig config, std::string_view path) {
  const DecoderKeys keys(j, path);
  TOKVEC_ASSIGN_OR_RETURN(config.d_model, keys.Count("hidden_size"));
  TOKVEC_ASSIGN_OR_RETURN(config.d_ff, keys.Count("intermediate_size"));
  TOKVEC_ASSIGN_OR_RETURN(config.n_layers, keys.Count("num_hidden_layers"));
  TOKVEC_ASSIGN_OR_RETURN(config.n_heads, keys.Count("num_attention_heads"));
  TOKVEC_ASSIGN_OR_RETURN(config.max_len, keys.Count("max_position_embeddings"));
  TOKVEC_ASSIGN_OR_RETURN(config.vocab_size, keys.Count("vocab_size"));
  TOKVEC_ASSIGN_OR_RETURN(config.layer_norm_eps, keys.Number("rms_norm_eps", 0.0, 1.0));
  TOKVEC_ASSIGN_OR_RETURN(config.n_kv_heads, keys.Count("num_key_value_heads", config.n_heads));
  if (config.n_heads % config.n_kv_heads != 0) {
    return keys.Error("num_key_value_heads",
                      fmt::format("is {}, which does not divide num_attention_heads {}: each key/value head must "
                                  "serve the same number of query heads",
                                  config.n_kv_heads, config.n_heads));
  }
  if (keys.Find("head_dim") == nullptr && config.d_model % config.n_heads != 0) {
    return keys.Error("num_attention_heads", fmt::format("is {}, which does not divide hidden_size {} (and there "
                                                         "is no head_dim)",
                                                         config.n_heads, config.d_model));
  }
  TOKVEC_ASSIGN_OR_RETURN(config.explicit_head_dim, keys.Count("head_dim", config.d_model / config.n_heads));
  if (config.explicit_head_dim % 2 != 0) {
    return keys.Error("head_dim", fmt::format("is {}; rotary positions need an even head_dim",
                                              config.explicit_head_dim));
  }
  TOKVEC_ASSIGN_OR_RETURN(const double theta, keys.Number("rope_theta", 1.0, 1e30, 10000.0));
  config.rotary = RotaryOptions{.base = static_cast<float>(theta), .pairing = RotaryPairing::kHalves};
  if (const json* scaling = keys.Find("rope_scaling")) {
    return keys.Error("rope_scaling", fmt::format("is {}; tokvec runs plain RoPE only (rope_scaling null): "
                                                  "scaled angles (linear, dynamic, yarn, llama3) are not supported",
                                                  scaling->dump()));
  }
  if (const json* act = keys.Find("hidden_act"); act != nullptr && *act != "silu") {
    return keys.Error("hidden_act", fmt::format("is {}; the {} feed-forward is SwiGLU, \"silu\"", act->dump(),
                                                config.model_type));
  }
  TOKVEC_ASSIGN_OR_RETURN(const bool tied, keys.Flag("tie_word_embeddings"));
  (void)tied;  // lm_head is never read: embed returns hidden states
  TOKVEC_ASSIGN_OR_RETURN(const bool sliding, keys.Flag("use_sliding_window"));
  if (sliding) {
    return keys.Error("use_sliding_window", "is true; tokvec runs every layer with full causal attention");
  }
  if (config.arch == Architecture::kQwen2) {
    config.qkv_bias = true;  // Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False
  } else {
    TOKVEC_ASSIGN_OR_RETURN(const bool bias, keys.Flag("attention_bias"));
    config.qkv_bias = config.o_bias = bias;
  }
  if (config.arch == Architecture::kLlama) {
    TOKVEC_ASSIGN_OR_RETURN(config.mlp_bias, keys.Flag("mlp_bias"));
  }
  config.qk_norm = config.arch == Architecture::kQwen3;
  return config;
}

}  // namespace tokvec
