// config.json of a model directory: which architecture, and its sizes.
//
// Three dialects are read:
//   - tokvec's own and Hugging Face GPT-2 (`"model_type": "gpt2"`, or tokvec's `"encoder"`): GPT-2's key names
//     n_embd, n_head, n_layer, n_positions, vocab_size, layer_norm_epsilon (all required); n_inner (null or absent:
//     4 * n_embd) and activation_function (default gelu_new for gpt2, relu for encoder) are optional.
//     "position_embedding_type": "rotary" (tokvec's own models; the key and value as in Hugging Face's ESM) replaces
//     the learned wpe table (gpt2) or the sinusoid (encoder) by RoPE on every layer's queries and keys, pairing
//     (i, i + head_dim/2) as GPT-NeoX and LLaMA do, with base "rope_theta" (default 10000); head_dim must be
//     even. "absolute" or no key: the architecture's own positions. Hugging Face's GPT-2 has no rotary
//     positions: transformers loads such a directory only as a different model.
//     "attention" (tokvec's own models): the kind of attention (attention_kind.h, docs/attention_kinds.md), one string
//     for every layer ("window:256") or a list with one per layer; default "full". "attention_seed" (default 0)
//     seeds BigBird's random blocks and Performer's features (layer l uses seed + l). A linformer layer reads
//     h.{l}.attn.linformer_e / linformer_f [K, n_positions] from the checkpoint.
//   - Hugging Face GPT-Neo (`"model_type": "gpt_neo"`, Black et al. 2021): hidden_size, num_heads, num_layers,
//     max_position_embeddings, vocab_size, layer_norm_epsilon, window_size, attention_types (all required;
//     [[["global", "local"], 6]] expands to 12 layers alternating full and window:window_size causal attention;
//     attention_layers, when present, must equal the expansion), intermediate_size (null: 4 * hidden_size),
//     activation_function (default gelu_new). Scores are not scaled by 1/√head_dim (the published architecture).
//   - Hugging Face RoBERTa (`"model_type": "roberta"`, also sentence-transformers models built on it): hidden_size,
//     num_attention_heads, num_hidden_layers, intermediate_size, max_position_embeddings, vocab_size,
//     type_vocab_size, pad_token_id, bos_token_id, eos_token_id, layer_norm_eps, hidden_act (all required).
//   - Hugging Face BERT (`"model_type": "bert"`: all-MiniLM, BGE, GTE and other sentence-transformers models):
//     RoBERTa's keys except bos_token_id / eos_token_id; pad_token_id optional. position_embedding_type
//     "absolute" only (relative_key and relative_key_query are refused). Positions run 0, 1, ... so max_len is
//     max_position_embeddings.
//   - Hugging Face MPNet (`"model_type": "mpnet"`: all-mpnet-base-v2 and other sentence-transformers models): RoBERTa's
//     keys without type_vocab_size, plus relative_attention_num_buckets (32: the bucket function is fixed at 32).
//     Runs as kRoberta (<s> ... </s>, positions from pad_token_id + 1) with a relative position bias per layer.
//   - Hugging Face ModernBERT (`"model_type": "modernbert"`, ModernBertConfig): hidden_size, num_hidden_layers,
//     num_attention_heads, intermediate_size, vocab_size, max_position_embeddings (required); norm_eps (1e-5),
//     norm_bias, attention_bias, mlp_bias (false), global_rope_theta (160000), local_rope_theta (10000; null: the
//     global one), local_attention (128, even), global_attn_every_n_layers (3), hidden_activation ("gelu"),
//     pad/cls/sep_token_id. Layer l is global when l % global_attn_every_n_layers == 0, else it attends to the
//     tokens within local_attention / 2 on either side. Dropouts are ignored; a non-zero one is not an error.
//   - Hugging Face LLaMA, Qwen2, Qwen3 (`"model_type": "llama" | "qwen2" | "qwen3"`): LlamaConfig's keys, read by
//     decoder_config.h (num_key_value_heads, head_dim, rope_theta, rms_norm_eps; rope_scaling must be null).
//
//   TOKVEC_ASSIGN_OR_RETURN(ModelConfig config, LoadModelConfig("models/gpt2/config.json"));
//   // config.arch == Architecture::kGpt2, config.d_model == 768, config.max_len == 1024
//
// A missing or mistyped key is InvalidArgument naming the key and the file.
#ifndef TOKVEC_MODELS_MODEL_CONFIG_H_
#define TOKVEC_MODELS_MODEL_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include <vector>

#include "attention/attention_kind.h"
#include "embeddings/positional.h"
#include "kernels/ops.h"

namespace tokvec {

enum class Architecture {
  kGpt2,     // learned positions, pre-LN, causal, gelu_new, final LayerNorm (Radford et al. 2019)
  kEncoder,  // Vaswani et al. 2017 encoder: sinusoidal positions, post-LN, bidirectional, ReLU
  kRoberta,  // Liu et al. 2019: word + position + token-type embeddings, embedding LN, post-LN, exact GELU
  kGptNeo,   // Black et al. 2021: GPT-2's layout with q/k/v/out projections, unscaled scores, local layers
  kBert,     // Devlin et al. 2018: RoBERTa's layout, positions from 0, [CLS] ... [SEP]; also DistilBERT (Sanh et
             // al. 2019: the same network, no token types, its own tensor names; model_type "distilbert")
  // Decoders with RMSNorm, RoPE, grouped-query attention and SwiGLU (decoder_config.h, decoder_block.h):
  kLlama,  // Touvron et al. 2023
  kQwen2,  // LLaMA's layout with q/k/v biases
  kQwen3,  // LLaMA's layout with per-head q_norm / k_norm and an explicit head_dim
  // Warner et al. 2024: embedding LayerNorm, pre-LN blocks (layer 0 without attn_norm), fused Wqkv, RoPE with a
  // global and a local theta, bidirectional sliding-window layers, GeGLU feed-forward, final_norm.
  kModernBert,
};

struct ModelConfig {
  Architecture arch = Architecture::kGpt2;
  std::string model_type;  // as written in config.json: "gpt2", "encoder", "roberta"
  int64_t vocab_size = 0;  // V
  int64_t d_model = 0;     // D
  int64_t n_heads = 0;     // H; d_model % n_heads == 0
  int64_t n_layers = 0;    // L
  int64_t d_ff = 0;        // F, feed-forward width
  int64_t max_len = 0;     // tokens per sequence (n_positions; for RoBERTa max_position_embeddings - pad - 1)
  double layer_norm_eps = 1e-5;
  Activation activation = Activation::kGeluTanh;  // config "gelu" exact, "gelu_new" tanh, "relu"
  // gpt2 / encoder: RoPE on each layer's q and k instead of additive positions (position_embedding_type rotary).
  std::optional<RotaryOptions> rotary;
  // Per layer [L] (or empty: every layer full): which attention; GPT-Neo's global/local layers.
  std::vector<AttentionKind> attention;
  uint64_t attention_seed = 0;           // BigBird random blocks, Performer features: layer l uses seed + l
  std::optional<float> attention_scale;  // default 1/√head_dim; GPT-Neo 1
  // RoBERTa and BERT.
  int64_t type_vocab_size = 0;      // rows of token_type_embeddings
  int64_t max_position_rows = 0;    // rows of position_embeddings (max_position_embeddings)
  int64_t pad_token_id = -1;        // RoBERTa: positions start at pad_token_id + 1
  int64_t bos_token_id = -1;        // <s>, prepended to every text
  int64_t eos_token_id = -1;        // </s>, appended to every text
  // MPNet (model_type "mpnet": RoBERTa's embeddings without token types, relative position buckets in every
  // layer): rows of encoder.relative_attention_bias (relative_attention_num_buckets); 0 for the others.
  int64_t relative_attention_buckets = 0;
  // DistilBERT (model_type "distilbert": BERT's network under other names, no token types): the position table is
  // create_sinusoidal_embeddings' when the checkpoint has none (sinusoidal_pos_embds).
  bool sinusoidal_position_table = false;
  // llama / qwen2 / qwen3 only (decoder_config.h); the RoPE base is rotary->base.
  int64_t n_kv_heads = 0;         // num_key_value_heads: query heads share them in groups (GQA)
  int64_t explicit_head_dim = 0;  // config head_dim (Qwen3: may differ from d_model / n_heads); 0: d_model / n_heads
  bool qkv_bias = false;          // q_proj, k_proj, v_proj have biases (qwen2; llama / qwen3 attention_bias)
  bool o_bias = false;            // o_proj has a bias (llama / qwen3 attention_bias)
  bool mlp_bias = false;          // gate_proj, up_proj, down_proj have biases (llama mlp_bias)
  bool qk_norm = false;           // qwen3: RMSNorm over each query / key head before RoPE
  // modernbert (ModernBertConfig): RoPE base rotary->base (global_rope_theta) on global layers and
  // local_rope_theta on the window layers (config.attention window:local_attention); LayerNorms with a bias only
  // when norm_bias; qkv_bias / o_bias from attention_bias, mlp_bias for Wi / Wo; cls / sep ids for pair templates.
  double local_rope_theta = 0;
  bool norm_bias = true;
  int64_t global_attn_every_n_layers = 0;
  int64_t cls_token_id = -1;
  int64_t sep_token_id = -1;

  int64_t head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : d_model / n_heads; }
  // True for llama, qwen2 and qwen3 (RMSNorm / RoPE / GQA / SwiGLU decoders, decoder_block.h).
  bool decoder() const {
    return arch == Architecture::kLlama || arch == Architecture::kQwen2 || arch == Architecture::kQwen3;
  }
  // True when a token sees only earlier tokens (gpt2, gpt_neo, the decoders).
  bool causal() const { return arch == Architecture::kGpt2 || arch == Architecture::kGptNeo || decoder(); }
  // True when some layer's attention is not full.
  bool has_attention_kinds() const;
};

// Parses config.json text; `path` names the file in messages.
absl::StatusOr<ModelConfig> ParseModelConfig(std::string_view json_text, std::string_view path);

// An optional boolean key of a config.json object (absent or null: `fallback`); another type is InvalidArgument
// naming the key and `path`.
absl::StatusOr<bool> GetBool(const nlohmann::json& j, std::string_view key, bool fallback, std::string_view path);
// Reads and parses a config.json file.
absl::StatusOr<ModelConfig> LoadModelConfig(const std::string& path);
// Reads config.json's "attention" value: a kind string for every layer or a list of n_layers strings; checks each
// kind fits the architecture (linformer needs a bidirectional model). Errors start with `where` (e.g. "--attention").
absl::StatusOr<std::vector<AttentionKind>> ParseLayerAttention(const nlohmann::json& value, int64_t n_layers,
                                                               bool causal, std::string_view where);

// config.json for a tokvec gpt2 or encoder model (GPT-2 key names, so Hugging Face reads a tokvec gpt2 model).
std::string ModelConfigToJson(const ModelConfig& config);

std::string_view ArchitectureName(Architecture arch);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_MODEL_CONFIG_H_
