// config.json of Hugging Face's LLaMA, Qwen2 and Qwen3 decoders (LlamaConfig, Qwen2Config, Qwen3Config keys), read
// into a ModelConfig for decoder_block.h.
//
//   required: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, max_position_embeddings,
//             vocab_size, rms_norm_eps
//   optional: num_key_value_heads (default num_attention_heads; must divide it), head_dim (default hidden_size /
//             num_attention_heads; even), rope_theta (default 10000), hidden_act (only "silu"),
//             tie_word_embeddings (lm_head is not read either way), attention_bias (llama, qwen3: q/k/v/o biases),
//             mlp_bias (llama); qwen2 always has q/k/v biases and no o_proj bias; qwen3 always has q_norm / k_norm.
//   refused:  rope_scaling other than null (linear, dynamic, yarn, llama3 scaling change the angles),
//             use_sliding_window true (Qwen2's windowed layers).
//   ignored:  torch_dtype, bos/eos/pad ids, dropout, initializer_range, use_cache, max_window_layers, ...
//
//   ModelConfig config;
//   config.model_type = "qwen3";
//   config.arch = *DecoderArchitecture("qwen3");   // Architecture::kQwen3
//   TOKVEC_ASSIGN_OR_RETURN(config, ParseDecoderKeys(json, config, "Qwen3-Embedding-0.6B/config.json"));
//   // config.n_heads 16, config.n_kv_heads 8, config.head_dim() 128, config.rotary->base 1e6
#ifndef TOKVEC_MODELS_DECODER_CONFIG_H_
#define TOKVEC_MODELS_DECODER_CONFIG_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "models/model_config.h"
#include "nlohmann/json.hpp"

namespace tokvec {

// kLlama, kQwen2 or kQwen3 for model_type "llama", "qwen2", "qwen3"; nullopt otherwise.
std::optional<Architecture> DecoderArchitecture(std::string_view model_type);

// Fills `config` (arch and model_type already set) from the keys above; errors name the key and `path`.
absl::StatusOr<ModelConfig> ParseDecoderKeys(const nlohmann::json& j, ModelConfig config, std::string_view path);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_DECODER_CONFIG_H_
