#include "models/model_config.h"

#include <algorithm>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "models/decoder_config.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

using nlohmann::json;

absl::Status KeyError(std::string_view key, std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("config '{}': key '{}' {}", path, key, what));
}

absl::StatusOr<int64_t> GetInt(const json& config, std::string_view key, std::string_view path) {
  auto it = config.find(key);
  if (it == config.end()) return KeyError(key, path, "is missing");
  if (!it->is_number_integer()) return KeyError(key, path, fmt::format("must be an integer, not {}", it->dump()));
  return it->get<int64_t>();
}

absl::StatusOr<int64_t> GetPositive(const json& config, std::string_view key, std::string_view path) {
  TOKVEC_ASSIGN_OR_RETURN(int64_t value, GetInt(config, key, path));
  if (value <= 0) return KeyError(key, path, fmt::format("must be positive, not {}", value));
  return value;
}

absl::StatusOr<double> GetFloat(const json& config, std::string_view key, std::string_view path) {
  auto it = config.find(key);
  if (it == config.end()) return KeyError(key, path, "is missing");
  if (!it->is_number() || it->get<double>() <= 0) {
    return KeyError(key, path, fmt::format("must be a positive number, not {}", it->dump()));
  }
  return it->get<double>();
}

absl::StatusOr<Activation> ParseActivationKey(const json& value, std::string_view key,
                                                      std::string_view path) {
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    if (name == "gelu") return Activation::kGeluExact;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
      return Activation::kGeluTanh;
    }
    if (name == "relu") return Activation::kRelu;
  }
  return KeyError(key, path,
                  fmt::format("is {}; supported: \"gelu\", \"gelu_new\", \"gelu_pytorch_tanh\", \"relu\"", value.dump()));
}

absl::Status CheckHeads(const ModelConfig& config, std::string_view path) {
  if (config.d_model % config.n_heads != 0) {
    return absl::InvalidArgumentError(fmt::format("config '{}': d_model {} is not divisible by {} heads", path,
                                                  config.d_model, config.n_heads));
  }
  return absl::OkStatus();
}

// Key names of the sizes in GPT-2-like configs (GPT-2's own, or GPT-Neo's Hugging Face names).
struct SizeKeys {
  std::string_view d_model, heads, layers, positions, inner;
};

// The sizes, layer_norm_epsilon, the feed-forward width (`inner`: null or absent means 4 * d_model) and
// activation_function (default: ReLU for tokvec's encoder, gelu_new otherwise); then the heads check.
absl::Status ReadSizes(const json& j, const SizeKeys& keys, ModelConfig* config, std::string_view path) {
  TOKVEC_ASSIGN_OR_RETURN(config->d_model, GetPositive(j, keys.d_model, path));
  TOKVEC_ASSIGN_OR_RETURN(config->n_heads, GetPositive(j, keys.heads, path));
  TOKVEC_ASSIGN_OR_RETURN(config->n_layers, GetPositive(j, keys.layers, path));
  TOKVEC_ASSIGN_OR_RETURN(config->max_len, GetPositive(j, keys.positions, path));
  TOKVEC_ASSIGN_OR_RETURN(config->vocab_size, GetPositive(j, "vocab_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config->layer_norm_eps, GetFloat(j, "layer_norm_epsilon", path));
  auto inner = j.find(keys.inner);
  if (inner == j.end() || inner->is_null()) {
    config->d_ff = 4 * config->d_model;
  } else {
    TOKVEC_ASSIGN_OR_RETURN(config->d_ff, GetPositive(j, keys.inner, path));
  }
  config->activation = config->arch == Architecture::kEncoder ? Activation::kRelu : Activation::kGeluTanh;
  if (auto act = j.find("activation_function"); act != j.end()) {
    TOKVEC_ASSIGN_OR_RETURN(config->activation, ParseActivationKey(*act, "activation_function", path));
  }
  return CheckHeads(*config, path);
}

// GPT-2 key names: tokvec's gpt2 and encoder, and Hugging Face's gpt2.
absl::StatusOr<ModelConfig> ParseGpt2Keys(const json& j, ModelConfig config, std::string_view path) {
  TOKVEC_RETURN_IF_ERROR(ReadSizes(j, {"n_embd", "n_head", "n_layer", "n_positions", "n_inner"}, &config, path));
  if (auto pos = j.find("position_embedding_type"); pos != j.end() && *pos != "absolute") {
    if (*pos != "rotary") {
      return KeyError("position_embedding_type", path,
                      fmt::format("is {}; supported: \"absolute\" (the architecture's own) and \"rotary\"",
                                  pos->dump()));
    }
    RotaryOptions rotary{.base = 10000.0f, .pairing = RotaryPairing::kHalves};
    if (j.contains("rope_theta")) {
      TOKVEC_ASSIGN_OR_RETURN(double theta, GetFloat(j, "rope_theta", path));
      if (!(theta > 1.0 && theta < 1e30)) {
        return KeyError("rope_theta", path, fmt::format("must be in (1, 1e30), not {}", theta));
      }
      rotary.base = static_cast<float>(theta);
    }
    if (config.head_dim() % 2 != 0) {
      return KeyError("position_embedding_type", path,
                      fmt::format("is \"rotary\", which needs an even head_dim; n_embd {} / n_head {} is {}",
                                  config.d_model, config.n_heads, config.head_dim()));
    }
    config.rotary = rotary;
  }
  if (auto kinds = j.find("attention"); kinds != j.end()) {
    TOKVEC_ASSIGN_OR_RETURN(config.attention,
                            ParseLayerAttention(*kinds, config.n_layers, config.causal(),
                                                fmt::format("config '{}': key 'attention'", path)));
  }
  if (auto seed = j.find("attention_seed"); seed != j.end()) {
    if (!seed->is_number_unsigned()) {
      return KeyError("attention_seed", path, fmt::format("must be a non-negative integer, not {}", seed->dump()));
    }
    config.attention_seed = seed->get<uint64_t>();
  }
  return config;
}

// Hugging Face GPT-Neo: hidden_size, num_heads, ..., attention_types expanded to one kind per layer.
absl::StatusOr<ModelConfig> ParseGptNeoKeys(const json& j, ModelConfig config, std::string_view path) {
  TOKVEC_RETURN_IF_ERROR(ReadSizes(
      j, {"hidden_size", "num_heads", "num_layers", "max_position_embeddings", "intermediate_size"}, &config, path));
  TOKVEC_ASSIGN_OR_RETURN(const int64_t window, GetPositive(j, "window_size", path));
  // attention_types: [[["global", "local"], 6], ...] -> one name per layer.
  auto types = j.find("attention_types");
  if (types == j.end()) return KeyError("attention_types", path, "is missing");
  const std::string_view form = "must be a list of [[\"global\" | \"local\", ...], repeat] pairs";
  std::vector<std::string> layers;
  if (!types->is_array()) return KeyError("attention_types", path, form);
  for (const json& pair : *types) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_array() || !pair[1].is_number_unsigned()) {
      return KeyError("attention_types", path, form);
    }
    const uint64_t repeat = pair[1].get<uint64_t>();
    if (repeat > 4096) return KeyError("attention_types", path, fmt::format("repeats {} times; at most 4096", repeat));
    for (uint64_t r = 0; r < repeat; ++r) {
      for (const json& name : pair[0]) {
        if (!name.is_string() || (name != "global" && name != "local")) return KeyError("attention_types", path, form);
        layers.push_back(name.get<std::string>());
        if (layers.size() > 4096) return KeyError("attention_types", path, "expands to more than 4096 layers");
      }
    }
  }
  if (static_cast<int64_t>(layers.size()) != config.n_layers) {
    return KeyError("attention_types", path, fmt::format("expands to {} layers, but num_layers is {}", layers.size(),
                                                         config.n_layers));
  }
  if (auto listed = j.find("attention_layers"); listed != j.end() && *listed != json(layers)) {
    return KeyError("attention_layers", path, fmt::format("is {}, but attention_types expands to {}", listed->dump(),
                                                          json(layers).dump()));
  }
  for (const std::string& name : layers) {
    AttentionKind kind;
    if (name == "local") {
      kind.type = AttentionKindType::kWindow;
      kind.window = window;
    }
    config.attention.push_back(kind);
  }
  config.attention_scale = 1.0f;
  return config;
}

}  // namespace

absl::StatusOr<bool> GetBool(const json& j, std::string_view key, bool fallback, std::string_view path) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return KeyError(key, path, fmt::format("must be true or false, not {}", it->dump()));
  return it->get<bool>();
}


absl::StatusOr<std::vector<AttentionKind>> ParseLayerAttention(const json& value, int64_t n_layers, bool causal,
                                                               std::string_view where) {
  auto error = [where](const std::string& what) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", where, what));
  };
  if (n_layers > 65536) return error(fmt::format("{} layers; per-layer attention kinds stop at 65536", n_layers));
  std::vector<std::string> names;
  if (value.is_string()) {
    names.assign(static_cast<size_t>(n_layers), value.get<std::string>());
  } else if (value.is_array() && static_cast<int64_t>(value.size()) == n_layers &&
             std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); })) {
    for (const json& v : value) names.push_back(v.get<std::string>());
  } else {
    return error(fmt::format("must be a kind (\"window:256\") or a list of {} kinds, one per layer; got {}",
                                n_layers, value.dump()));
  }
  std::vector<AttentionKind> kinds;
  for (size_t layer = 0; layer < names.size(); ++layer) {
    absl::StatusOr<AttentionKind> kind = ParseAttentionKind(names[layer]);
    if (!kind.ok()) return error(fmt::format("layer {}: {}", layer, std::string(kind.status().message())));
    if (causal && !kind->supports_causal()) {
      return error(fmt::format("layer {}: {} is bidirectional only; a causal model can use "
                                                     "full, window, longformer, bigbird, performer or linear",
                                                     layer, names[layer]));
    }
    kinds.push_back(*kind);
  }
  return kinds;
}

namespace {

// The keys RoBERTa and BERT share (BertConfig's names): sizes, type_vocab_size, layer_norm_eps, hidden_act, and
// position_embedding_type, of which only "absolute" is run.
absl::Status ReadBertFamilyKeys(const json& j, ModelConfig* config, std::string_view path) {
  TOKVEC_ASSIGN_OR_RETURN(config->d_model, GetPositive(j, "hidden_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config->n_heads, GetPositive(j, "num_attention_heads", path));
  TOKVEC_ASSIGN_OR_RETURN(config->n_layers, GetPositive(j, "num_hidden_layers", path));
  TOKVEC_ASSIGN_OR_RETURN(config->d_ff, GetPositive(j, "intermediate_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config->max_position_rows, GetPositive(j, "max_position_embeddings", path));
  TOKVEC_ASSIGN_OR_RETURN(config->vocab_size, GetPositive(j, "vocab_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config->type_vocab_size, GetPositive(j, "type_vocab_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config->layer_norm_eps, GetFloat(j, "layer_norm_eps", path));
  auto act = j.find("hidden_act");
  if (act == j.end()) return KeyError("hidden_act", path, "is missing");
  TOKVEC_ASSIGN_OR_RETURN(config->activation, ParseActivationKey(*act, "hidden_act", path));
  if (auto pos = j.find("position_embedding_type"); pos != j.end() && *pos != "absolute") {
    return KeyError("position_embedding_type", path,
                    fmt::format("is {}; tokvec supports only \"absolute\" (not relative_key / relative_key_query)",
                                pos->dump()));
  }
  return CheckHeads(*config, path);
}

// pad_token_id when given (default 0), checked against the vocabulary: BERT and DistilBERT only check it.
absl::Status ReadOptionalPadTokenId(const json& j, ModelConfig* config, std::string_view path) {
  config->pad_token_id = 0;
  if (auto pad = j.find("pad_token_id"); pad != j.end() && !pad->is_null()) {
    TOKVEC_ASSIGN_OR_RETURN(config->pad_token_id, GetInt(j, "pad_token_id", path));
    if (config->pad_token_id < 0 || config->pad_token_id >= config->vocab_size) {
      return KeyError("pad_token_id", path,
                      fmt::format("is {}, outside the vocabulary [0, {})", config->pad_token_id, config->vocab_size));
    }
  }
  return absl::OkStatus();
}

// Hugging Face BERT (Devlin et al. 2018): RoBERTa's keys without bos/eos; positions start at 0, so every row of
// position_embeddings is a token position. pad_token_id is optional (default 0) and only checked.
absl::StatusOr<ModelConfig> ParseBertKeys(const json& j, ModelConfig config, std::string_view path) {
  TOKVEC_RETURN_IF_ERROR(ReadBertFamilyKeys(j, &config, path));
  TOKVEC_RETURN_IF_ERROR(ReadOptionalPadTokenId(j, &config, path));
  config.max_len = config.max_position_rows;
  return config;
}

// Hugging Face DistilBERT (DistilBertConfig): dim, n_heads, n_layers, hidden_dim, activation,
// max_position_embeddings, vocab_size, pad_token_id, sinusoidal_pos_embds; LayerNorm eps 1e-12 as the model
// hard-codes it; no token types. BERT's network (positions from 0, post-LN, [CLS] ... [SEP]).
absl::StatusOr<ModelConfig> ParseDistilBertKeys(const json& j, ModelConfig config, std::string_view path) {
  TOKVEC_ASSIGN_OR_RETURN(config.d_model, GetPositive(j, "dim", path));
  TOKVEC_ASSIGN_OR_RETURN(config.n_heads, GetPositive(j, "n_heads", path));
  TOKVEC_ASSIGN_OR_RETURN(config.n_layers, GetPositive(j, "n_layers", path));
  TOKVEC_ASSIGN_OR_RETURN(config.d_ff, GetPositive(j, "hidden_dim", path));
  TOKVEC_ASSIGN_OR_RETURN(config.max_position_rows, GetPositive(j, "max_position_embeddings", path));
  TOKVEC_ASSIGN_OR_RETURN(config.vocab_size, GetPositive(j, "vocab_size", path));
  config.layer_norm_eps = 1e-12;
  config.type_vocab_size = 0;
  auto act = j.find("activation");
  if (act == j.end()) return KeyError("activation", path, "is missing");
  TOKVEC_ASSIGN_OR_RETURN(config.activation, ParseActivationKey(*act, "activation", path));
  if (auto sinusoidal = j.find("sinusoidal_pos_embds"); sinusoidal != j.end() && !sinusoidal->is_null()) {
    if (!sinusoidal->is_boolean()) {
      return KeyError("sinusoidal_pos_embds", path, fmt::format("must be true or false, not {}", sinusoidal->dump()));
    }
    config.sinusoidal_position_table = sinusoidal->get<bool>();
  }
  TOKVEC_RETURN_IF_ERROR(ReadOptionalPadTokenId(j, &config, path));
  config.max_len = config.max_position_rows;
  TOKVEC_RETURN_IF_ERROR(CheckHeads(config, path));
  return config;
}

// An optional positive number (absent: `fallback`).
absl::StatusOr<double> GetOptionalFloat(const json& j, std::string_view key, double fallback, std::string_view path) {
  if (!j.contains(key)) return fallback;
  return GetFloat(j, key, path);
}

// Hugging Face ModernBERT (ModernBertConfig; Warner et al. 2024).
absl::StatusOr<ModelConfig> ParseModernBertKeys(const json& j, ModelConfig config, std::string_view path) {
  TOKVEC_ASSIGN_OR_RETURN(config.d_model, GetPositive(j, "hidden_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config.n_heads, GetPositive(j, "num_attention_heads", path));
  TOKVEC_ASSIGN_OR_RETURN(config.n_layers, GetPositive(j, "num_hidden_layers", path));
  TOKVEC_ASSIGN_OR_RETURN(config.d_ff, GetPositive(j, "intermediate_size", path));
  TOKVEC_ASSIGN_OR_RETURN(config.max_position_rows, GetPositive(j, "max_position_embeddings", path));
  TOKVEC_ASSIGN_OR_RETURN(config.vocab_size, GetPositive(j, "vocab_size", path));
  config.max_len = config.max_position_rows;
  TOKVEC_RETURN_IF_ERROR(CheckHeads(config, path));
  if (config.head_dim() % 2 != 0) {
    return KeyError("num_attention_heads", path,
                    fmt::format("gives head_dim {} (hidden_size {} / {} heads); rotary positions need it even",
                                config.head_dim(), config.d_model, config.n_heads));
  }
  TOKVEC_ASSIGN_OR_RETURN(config.layer_norm_eps, GetOptionalFloat(j, "norm_eps", 1e-5, path));
  TOKVEC_ASSIGN_OR_RETURN(config.norm_bias, GetBool(j, "norm_bias", false, path));
  TOKVEC_ASSIGN_OR_RETURN(config.qkv_bias, GetBool(j, "attention_bias", false, path));
  config.o_bias = config.qkv_bias;
  TOKVEC_ASSIGN_OR_RETURN(config.mlp_bias, GetBool(j, "mlp_bias", false, path));
  config.activation = Activation::kGeluExact;
  if (auto act = j.find("hidden_activation"); act != j.end()) {
    TOKVEC_ASSIGN_OR_RETURN(config.activation, ParseActivationKey(*act, "hidden_activation", path));
  }
  TOKVEC_ASSIGN_OR_RETURN(double global_theta, GetOptionalFloat(j, "global_rope_theta", 160000.0, path));
  config.rotary = RotaryOptions{.base = static_cast<float>(global_theta), .pairing = RotaryPairing::kHalves};
  config.local_rope_theta = global_theta;
  if (auto local = j.find("local_rope_theta"); local == j.end()) {
    config.local_rope_theta = 10000.0;
  } else if (!local->is_null()) {
    TOKVEC_ASSIGN_OR_RETURN(config.local_rope_theta, GetFloat(j, "local_rope_theta", path));
  }
  int64_t window = 128;
  if (j.contains("local_attention")) {
    TOKVEC_ASSIGN_OR_RETURN(window, GetPositive(j, "local_attention", path));
  }
  if (window % 2 != 0) {
    return KeyError("local_attention", path,
                    fmt::format("is {}; tokvec runs an even window (local_attention / 2 tokens on either side)", window));
  }
  config.global_attn_every_n_layers = 3;
  if (j.contains("global_attn_every_n_layers")) {
    TOKVEC_ASSIGN_OR_RETURN(config.global_attn_every_n_layers, GetPositive(j, "global_attn_every_n_layers", path));
  }
  if (auto types = j.find("layer_types"); types != j.end() && !types->is_null()) {
    return KeyError("layer_types", path, "is given; tokvec derives the layer kinds from global_attn_every_n_layers");
  }
  if (auto scaling = j.find("rope_scaling"); scaling != j.end() && !scaling->is_null()) {
    return KeyError("rope_scaling", path, fmt::format("is {}; only null (no RoPE scaling) is supported",
                                                      scaling->dump()));
  }
  AttentionKind local{.type = AttentionKindType::kWindow, .window = window};
  for (int64_t layer = 0; layer < config.n_layers; ++layer) {
    config.attention.push_back(layer % config.global_attn_every_n_layers == 0 ? AttentionKind{} : local);
  }
  TOKVEC_RETURN_IF_ERROR(ReadOptionalPadTokenId(j, &config, path));
  for (auto [key, field] : {std::pair<const char*, int64_t*>{"cls_token_id", &config.cls_token_id},
                            {"sep_token_id", &config.sep_token_id}}) {
    if (auto id = j.find(key); id != j.end() && !id->is_null()) {
      TOKVEC_ASSIGN_OR_RETURN(*field, GetInt(j, key, path));
      if (*field < 0 || *field >= config.vocab_size) {
        return KeyError(key, path, fmt::format("is {}, outside the vocabulary [0, {})", *field, config.vocab_size));
      }
    }
  }
  return config;
}

absl::StatusOr<ModelConfig> ParseRobertaKeys(const json& j, ModelConfig config, std::string_view path) {
  TOKVEC_RETURN_IF_ERROR(ReadBertFamilyKeys(j, &config, path));
  TOKVEC_ASSIGN_OR_RETURN(config.pad_token_id, GetInt(j, "pad_token_id", path));
  TOKVEC_ASSIGN_OR_RETURN(config.bos_token_id, GetInt(j, "bos_token_id", path));
  TOKVEC_ASSIGN_OR_RETURN(config.eos_token_id, GetInt(j, "eos_token_id", path));
  for (auto [key, id] : {std::pair<const char*, int64_t>{"pad_token_id", config.pad_token_id},
                         {"bos_token_id", config.bos_token_id},
                         {"eos_token_id", config.eos_token_id}}) {
    if (id < 0 || id >= config.vocab_size) {
      return KeyError(key, path, fmt::format("is {}, outside the vocabulary [0, {})", id, config.vocab_size));
    }
  }
  // Position ids run pad_token_id + 1, pad_token_id + 2, ...: that many rows remain for tokens.
  config.max_len = config.max_position_rows - config.pad_token_id - 1;
  if (config.max_len <= 0) {
    return KeyError("max_position_embeddings", path,
                    fmt::format("is {}, leaving no positions after pad_token_id {} + 1", config.max_position_rows,
                                config.pad_token_id));
  }
  return config;
}

// Hugging Face MPNet (MPNetConfig): RoBERTa's sizes, pad/bos/eos and positions from pad_token_id + 1, no token
// types, relative_attention_num_buckets. MPNetEncoder buckets with num_buckets 32 whatever the key says, so only 32
// is run. type_vocab_size and position_embedding_type are not MPNetConfig keys: ignored, as transformers does.
absl::StatusOr<ModelConfig> ParseMpnetKeys(const json& j, ModelConfig config, std::string_view path) {
  json keys = j;
  keys["type_vocab_size"] = 1;  // read by ReadBertFamilyKeys; MPNet has no token types
  keys.erase("position_embedding_type");
  TOKVEC_ASSIGN_OR_RETURN(config, ParseRobertaKeys(keys, config, path));
  config.type_vocab_size = 0;
  TOKVEC_ASSIGN_OR_RETURN(config.relative_attention_buckets, GetPositive(j, "relative_attention_num_buckets", path));
  if (config.relative_attention_buckets != 32) {
    return KeyError("relative_attention_num_buckets", path,
                    fmt::format("is {}; MPNet's relative_position_bucket uses 32 buckets (max_distance 128), so tokvec "
                                "runs 32 only", config.relative_attention_buckets));
  }
  return config;
}

}  // namespace

bool ModelConfig::has_attention_kinds() const {
  return std::any_of(attention.begin(), attention.end(),
                     [](const AttentionKind& k) { return k.type != AttentionKindType::kFull; });
}

std::string_view ArchitectureName(Architecture arch) {
  switch (arch) {
    case Architecture::kGpt2:
      return "gpt2";
    case Architecture::kEncoder:
      return "encoder";
    case Architecture::kRoberta:
      return "roberta";
    case Architecture::kGptNeo:
      return "gpt_neo";
    case Architecture::kBert:
      return "bert";
    case Architecture::kLlama:
      return "llama";
    case Architecture::kQwen2:
      return "qwen2";
    case Architecture::kQwen3:
      return "qwen3";
    case Architecture::kModernBert:
      return "modernbert";
  }
  return "unknown";
}

absl::StatusOr<ModelConfig> ParseModelConfig(std::string_view json_text, std::string_view path) {
  json j = json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("config '{}' is not a JSON object", path));
  }
  auto type = j.find("model_type");
  if (type == j.end()) return KeyError("model_type", path, "is missing (expected \"gpt2\", \"encoder\" or \"roberta\")");
  if (!type->is_string()) return KeyError("model_type", path, fmt::format("must be a string, not {}", type->dump()));
  ModelConfig config;
  config.model_type = type->get<std::string>();
  if (config.model_type == "gpt2") {
    config.arch = Architecture::kGpt2;
    return ParseGpt2Keys(j, config, path);
  }
  if (config.model_type == "encoder") {
    config.arch = Architecture::kEncoder;
    return ParseGpt2Keys(j, config, path);
  }
  if (config.model_type == "roberta" || config.model_type == "xlm-roberta") {
    config.arch = Architecture::kRoberta;
    return ParseRobertaKeys(j, config, path);
  }
  if (config.model_type == "mpnet") {
    config.arch = Architecture::kRoberta;
    return ParseMpnetKeys(j, config, path);
  }
  if (config.model_type == "gpt_neo") {
    config.arch = Architecture::kGptNeo;
    return ParseGptNeoKeys(j, config, path);
  }
  if (config.model_type == "bert") {
    config.arch = Architecture::kBert;
    return ParseBertKeys(j, config, path);
  }
  if (config.model_type == "distilbert") {
    config.arch = Architecture::kBert;
    return ParseDistilBertKeys(j, config, path);
  }
  if (config.model_type == "modernbert") {
    config.arch = Architecture::kModernBert;
    return ParseModernBertKeys(j, config, path);
  }
  if (std::optional<Architecture> decoder = DecoderArchitecture(config.model_type)) {
    config.arch = *decoder;
    return ParseDecoderKeys(j, config, path);
  }
  return absl::InvalidArgumentError(fmt::format(
      "config '{}': unsupported model_type \"{}\"; tokvec runs \"gpt2\", \"gpt_neo\", \"roberta\", \"bert\", "
      "\"distilbert\", \"mpnet\", \"modernbert\", \"llama\", \"qwen2\", \"qwen3\" and its own \"encoder\"",
      path,
      config.model_type));
}

absl::StatusOr<ModelConfig> LoadModelConfig(const std::string& path) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseModelConfig(text, path);
}

std::string ModelConfigToJson(const ModelConfig& config) {
  nlohmann::ordered_json j;
  j["model_type"] = std::string(ArchitectureName(config.arch));
  j["n_embd"] = config.d_model;
  j["n_head"] = config.n_heads;
  j["n_layer"] = config.n_layers;
  j["n_inner"] = config.d_ff;
  j["n_positions"] = config.max_len;
  j["vocab_size"] = config.vocab_size;
  j["layer_norm_epsilon"] = config.layer_norm_eps;
  switch (config.activation) {
    case Activation::kGeluExact:
      j["activation_function"] = "gelu";
      break;
    case Activation::kGeluTanh:
      j["activation_function"] = "gelu_new";
      break;
    case Activation::kRelu:
      j["activation_function"] = "relu";
      break;
  }
  if (config.rotary) {
    j["position_embedding_type"] = "rotary";
    j["rope_theta"] = config.rotary->base;
  }
  if (config.has_attention_kinds()) {
    const bool same = std::all_of(config.attention.begin(), config.attention.end(),
                                  [&](const AttentionKind& k) { return k == config.attention.front(); });
    if (same) {
      j["attention"] = AttentionKindName(config.attention.front());
    } else {
      std::vector<std::string> names;
      for (const AttentionKind& k : config.attention) names.push_back(AttentionKindName(k));
      j["attention"] = names;
    }
    j["attention_seed"] = config.attention_seed;
  }
  return j.dump(2) + "\n";
}

}  // namespace tokvec
