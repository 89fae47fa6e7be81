#include "models/model.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "attention/kernel_attention.h"
#include "base/status_macros.h"
#include "embeddings/positional.h"
#include "embeddings/token_embedding.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "kernels/ops.h"
#include "models/batched_block.h"

namespace tokvec {
namespace {

constexpr int64_t kSinusoidRows = 4096;  // sinusoidal positions precomputed at load (encoder)

// Reads tensors under one name prefix and checks each one's shape.
class TensorReader {
 public:
  TensorReader(SafetensorsShards* file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

  // The tensor `name` (prefix added), which must have `shape`; `shape_doc` says where the shape comes from,
  // e.g. "[n_embd, 3 * n_embd]".
  absl::StatusOr<FloatTensor> Get(const std::string& name, const std::vector<int64_t>& shape,
                                  std::string_view shape_doc) {
    const std::string full = prefix_ + name;
    if (file_->Find(full) == nullptr) {
      return absl::NotFoundError(fmt::format("'{}' has no tensor '{}' (expected shape [{}] = {}); is it a {} checkpoint?",
                                             file_->path(), full, fmt::join(shape, ", "), shape_doc, arch_name_));
    }
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor tensor, file_->ReadFloat32(full));
    if (tensor.shape != shape) {
      return absl::InvalidArgumentError(fmt::format("'{}': tensor '{}' has shape [{}]; expected [{}] = {} from config.json",
                                                    file_->path(), full, fmt::join(tensor.shape, ", "),
                                                    fmt::join(shape, ", "), shape_doc));
    }
    return tensor;
  }

  absl::StatusOr<MatrixView> Matrix2(const std::string& name, int64_t rows, int64_t cols, std::string_view doc) {
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, Get(name, {rows, cols}, doc));
    return MatrixView{t.data, rows, cols};
  }

  absl::StatusOr<std::span<const float>> Vector(const std::string& name, int64_t size, std::string_view doc) {
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, Get(name, {size}, doc));
    return std::span<const float>(t.data, static_cast<size_t>(size));
  }

  // A Conv1D ([in, out], GPT-2) or nn.Linear ([out, in], RoBERTa) layer: name.weight and name.bias.
  absl::StatusOr<LinearWeights> Linear(const std::string& name, int64_t in, int64_t out, WeightLayout layout,
                                       std::string_view in_doc, std::string_view out_doc) {
    LinearWeights w;
    w.layout = layout;
    if (layout == WeightLayout::kInOut) {
      TOKVEC_ASSIGN_OR_RETURN(w.weight, Matrix2(name + ".weight", in, out, fmt::format("[{}, {}]", in_doc, out_doc)));
    } else {
      TOKVEC_ASSIGN_OR_RETURN(w.weight, Matrix2(name + ".weight", out, in, fmt::format("[{}, {}]", out_doc, in_doc)));
    }
    TOKVEC_ASSIGN_OR_RETURN(w.bias, Vector(name + ".bias", out, fmt::format("[{}]", out_doc)));
    return w;
  }

  // An nn.Linear ([out, in]) layer whose name.bias [out] is read only when `bias` (the decoders, ModernBERT).
  absl::StatusOr<LinearWeights> OutIn(const std::string& name, int64_t in, int64_t out, std::string_view in_doc,
                                      std::string_view out_doc, bool bias) {
    LinearWeights w;
    w.layout = WeightLayout::kOutIn;
    TOKVEC_ASSIGN_OR_RETURN(w.weight, Matrix2(name + ".weight", out, in, fmt::format("[{}, {}]", out_doc, in_doc)));
    if (bias) {
      TOKVEC_ASSIGN_OR_RETURN(w.bias, Vector(name + ".bias", out, fmt::format("[{}]", out_doc)));
    }
    return w;
  }

  absl::StatusOr<LayerNormWeights> Norm(const std::string& name, int64_t d_model, std::string_view d_doc,
                                        double eps) {
    LayerNormWeights w;
    TOKVEC_ASSIGN_OR_RETURN(w.gamma, Vector(name + ".weight", d_model, fmt::format("[{}]", d_doc)));
    TOKVEC_ASSIGN_OR_RETURN(w.beta, Vector(name + ".bias", d_model, fmt::format("[{}]", d_doc)));
    w.eps = static_cast<float>(eps);
    return w;
  }

  void set_arch_name(std::string_view name) { arch_name_ = name; }

 private:
  SafetensorsShards* file_;
  std::string prefix_;
  std::string arch_name_;
};

// The name prefix under which `anchor` exists: "" or one of `prefixes`. NotFound lists every name tried.
absl::StatusOr<std::string> FindPrefix(const SafetensorsShards& file, const std::string& anchor,
                                       std::string_view other_prefix, std::string_view arch) {
  if (file.Find(anchor) != nullptr) return std::string();
  const std::string prefixed = std::string(other_prefix) + anchor;
  if (file.Find(prefixed) != nullptr) return std::string(other_prefix);
  return absl::NotFoundError(fmt::format(
      "'{}' has no tensor '{}' (nor '{}'); config.json says model_type \"{}\" - is this the right checkpoint?",
      file.path(), anchor, prefixed, arch));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& dir, LinearDtype dtype) {
  const std::string weights = dir + "/model.safetensors";
  const std::string index = dir + "/model.safetensors.index.json";
  if (!std::filesystem::exists(weights)) {
    if (std::filesystem::exists(index)) return Load(dir + "/config.json", index, dtype);  // sharded
    std::string hint = "`tokvec init` makes a model directory";
    if (std::filesystem::exists(dir + "/pytorch_model.bin") ||
        std::filesystem::exists(dir + "/pytorch_model.bin.index.json")) {
      hint = "only safetensors is read, not PyTorch pickles (pytorch_model.bin, which can run code when loaded); "
             "convert it, e.g. with safetensors.torch.save_file, or download the model's model.safetensors";
    }
    return absl::NotFoundError(fmt::format(
        "model directory '{}' has no model.safetensors (nor model.safetensors.index.json); {}", dir, hint));
  }
  return Load(dir + "/config.json", weights, dtype);
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& config_path, const std::string& weights_path,
                                                   LinearDtype dtype) {
  // Here, on the loading thread, and not at the first op: that may run on a worker (Python's num_threads=2), when
  // OpenBLAS's kernel set can no longer be put right (kernels/blas_kernels.h) and the process would keep its SSE3
  // fallback on a CPU it does not know: slower, and other bits than the CLI's.
  UseSingleThreadedBlas();
  std::unique_ptr<Model> model(new Model());
  TOKVEC_ASSIGN_OR_RETURN(model->config_, LoadModelConfig(config_path));
  model->pack_f32_ = dtype == LinearDtype::kF32;
  TOKVEC_RETURN_IF_ERROR(model->Bind(weights_path));
  TOKVEC_RETURN_IF_ERROR(model->UseLinearDtype(dtype));
  return model;
}

absl::Status Model::Bind(const std::string& weights_path) {
  TOKVEC_ASSIGN_OR_RETURN(weights_, SafetensorsShards::Open(weights_path));
  if (config_.decoder()) return BindDecoder();
  const ModelConfig& c = config_;
  const int64_t d = c.d_model, f = c.d_ff;
  stack_.config.n_heads = c.n_heads;
  stack_.config.activation = c.activation;
  stack_.config.causal = causal();
  stack_.blocks.clear();
  stack_.final_norm.reset();
  stack_.config.relative_bias.reset();

  if (c.arch == Architecture::kModernBert) {
    TOKVEC_RETURN_IF_ERROR(BindModernBert());
  } else if (c.model_type == "distilbert") {
    // 1a. DistilBERT (DistilBertModel's names; DistilBertFor* prefix them "distilbert."): BERT's network without
    // token types.
    TOKVEC_ASSIGN_OR_RETURN(std::string prefix,
                            FindPrefix(*weights_, "embeddings.word_embeddings.weight", "distilbert.", c.model_type));
    TensorReader r(weights_.get(), prefix);
    r.set_arch_name(c.model_type);
    TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("embeddings.word_embeddings.weight", c.vocab_size, d,
                                                    "[vocab_size, dim]"));
    if (c.sinusoidal_position_table && weights_->Find(prefix + "embeddings.position_embeddings.weight") == nullptr) {
      // create_sinusoidal_embeddings: sin at even columns, cos at odd, pos / 10000^(2(j/2)/dim).
      TOKVEC_ASSIGN_OR_RETURN(sinusoid_, SinusoidalTable(c.max_position_rows, d));
      position_table_ = sinusoid_.view();
    } else {
      TOKVEC_ASSIGN_OR_RETURN(position_table_, r.Matrix2("embeddings.position_embeddings.weight",
                                                         c.max_position_rows, d, "[max_position_embeddings, dim]"));
    }
    token_type_row_ = {};
    TOKVEC_ASSIGN_OR_RETURN(embedding_norm_, r.Norm("embeddings.LayerNorm", d, "dim", c.layer_norm_eps));
    stack_.config.norm = NormPlacement::kPostLN;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      const std::string p = fmt::format("transformer.layer.{}.", i);
      TransformerBlockWeights b;
      const auto out_in = WeightLayout::kOutIn;
      TOKVEC_ASSIGN_OR_RETURN(b.attention.q, r.Linear(p + "attention.q_lin", d, d, out_in, "dim", "dim"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.k, r.Linear(p + "attention.k_lin", d, d, out_in, "dim", "dim"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.v, r.Linear(p + "attention.v_lin", d, d, out_in, "dim", "dim"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.out, r.Linear(p + "attention.out_lin", d, d, out_in, "dim", "dim"));
      b.attention.n_heads = c.n_heads;
      TOKVEC_ASSIGN_OR_RETURN(b.attention_norm, r.Norm(p + "sa_layer_norm", d, "dim", c.layer_norm_eps));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.up, r.Linear(p + "ffn.lin1", d, f, out_in, "dim", "hidden_dim"));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.down, r.Linear(p + "ffn.lin2", f, d, out_in, "hidden_dim", "dim"));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward_norm, r.Norm(p + "output_layer_norm", d, "dim", c.layer_norm_eps));
      stack_.blocks.push_back(std::move(b));
    }
  } else if (c.model_type == "mpnet") {
    TOKVEC_RETURN_IF_ERROR(BindMpnet());
  } else if (c.arch == Architecture::kRoberta || c.arch == Architecture::kBert) {
    // 1. RoBERTa / BERT embeddings, nn.Linear blocks, post-LN (BertModel's names; BertFor* prefix them "bert.").
    const std::string_view other_prefix = c.arch == Architecture::kBert ? "bert." : "roberta.";
    TOKVEC_ASSIGN_OR_RETURN(std::string prefix,
                            FindPrefix(*weights_, "embeddings.word_embeddings.weight", other_prefix, c.model_type));
    TensorReader r(weights_.get(), prefix);
    r.set_arch_name(c.model_type);
    TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("embeddings.word_embeddings.weight", c.vocab_size, d,
                                                    "[vocab_size, hidden_size]"));
    TOKVEC_ASSIGN_OR_RETURN(position_table_, r.Matrix2("embeddings.position_embeddings.weight", c.max_position_rows,
                                                       d, "[max_position_embeddings, hidden_size]"));
    TOKVEC_ASSIGN_OR_RETURN(MatrixView types, r.Matrix2("embeddings.token_type_embeddings.weight", c.type_vocab_size,
                                                        d, "[type_vocab_size, hidden_size]"));
    token_type_row_ = std::span<const float>(types.row(0), static_cast<size_t>(d));
    token_types_ = types;
    TOKVEC_ASSIGN_OR_RETURN(embedding_norm_, r.Norm("embeddings.LayerNorm", d, "hidden_size", c.layer_norm_eps));
    stack_.config.norm = NormPlacement::kPostLN;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      const std::string p = fmt::format("encoder.layer.{}.", i);
      TransformerBlockWeights b;
      const auto out_in = WeightLayout::kOutIn;
      TOKVEC_ASSIGN_OR_RETURN(b.attention.q, r.Linear(p + "attention.self.query", d, d, out_in, "hidden_size",
                                                      "hidden_size"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.k, r.Linear(p + "attention.self.key", d, d, out_in, "hidden_size",
                                                      "hidden_size"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.v, r.Linear(p + "attention.self.value", d, d, out_in, "hidden_size",
                                                      "hidden_size"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.out, r.Linear(p + "attention.output.dense", d, d, out_in, "hidden_size",
                                                        "hidden_size"));
      b.attention.n_heads = c.n_heads;
      TOKVEC_ASSIGN_OR_RETURN(b.attention_norm,
                              r.Norm(p + "attention.output.LayerNorm", d, "hidden_size", c.layer_norm_eps));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.up, r.Linear(p + "intermediate.dense", d, f, out_in, "hidden_size",
                                                          "intermediate_size"));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.down, r.Linear(p + "output.dense", f, d, out_in, "intermediate_size",
                                                            "hidden_size"));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward_norm, r.Norm(p + "output.LayerNorm", d, "hidden_size", c.layer_norm_eps));
      stack_.blocks.push_back(std::move(b));
    }
  } else if (c.arch == Architecture::kGptNeo) {
    // 2. GPT-Neo: GPT-2's embeddings and pre-LN stack; q/k/v (no bias) and out projections, MLP as nn.Linear.
    TOKVEC_ASSIGN_OR_RETURN(std::string prefix, FindPrefix(*weights_, "wte.weight", "transformer.", c.model_type));
    TensorReader r(weights_.get(), prefix);
    r.set_arch_name(c.model_type);
    TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("wte.weight", c.vocab_size, d, "[vocab_size, hidden_size]"));
    TOKVEC_ASSIGN_OR_RETURN(position_table_,
                            r.Matrix2("wpe.weight", c.max_len, d, "[max_position_embeddings, hidden_size]"));
    stack_.config.norm = NormPlacement::kPreLN;
    const auto out_in = WeightLayout::kOutIn;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      const std::string p = fmt::format("h.{}.", i);
      TransformerBlockWeights b;
      TOKVEC_ASSIGN_OR_RETURN(b.attention_norm, r.Norm(p + "ln_1", d, "hidden_size", c.layer_norm_eps));
      LinearWeights* projections[3] = {&b.attention.q, &b.attention.k, &b.attention.v};
      const char* names[3] = {"q_proj", "k_proj", "v_proj"};
      for (int j = 0; j < 3; ++j) {
        projections[j]->layout = out_in;
        TOKVEC_ASSIGN_OR_RETURN(projections[j]->weight, r.Matrix2(p + "attn.attention." + names[j] + ".weight", d, d,
                                                                  "[hidden_size, hidden_size]"));
      }
      TOKVEC_ASSIGN_OR_RETURN(b.attention.out, r.Linear(p + "attn.attention.out_proj", d, d, out_in, "hidden_size",
                                                        "hidden_size"));
      b.attention.n_heads = c.n_heads;
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward_norm, r.Norm(p + "ln_2", d, "hidden_size", c.layer_norm_eps));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.up, r.Linear(p + "mlp.c_fc", d, f, out_in, "hidden_size",
                                                          "intermediate_size"));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.down, r.Linear(p + "mlp.c_proj", f, d, out_in, "intermediate_size",
                                                            "hidden_size"));
      stack_.blocks.push_back(std::move(b));
    }
    TOKVEC_ASSIGN_OR_RETURN(stack_.final_norm, r.Norm("ln_f", d, "hidden_size", c.layer_norm_eps));
  } else {
    // 3. GPT-2 names, Conv1D blocks: pre-LN + wpe + ln_f (gpt2) or post-LN + sinusoid (encoder).
    TOKVEC_ASSIGN_OR_RETURN(std::string prefix, FindPrefix(*weights_, "wte.weight", "transformer.", c.model_type));
    TensorReader r(weights_.get(), prefix);
    r.set_arch_name(c.model_type);
    TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("wte.weight", c.vocab_size, d, "[vocab_size, n_embd]"));
    stack_.config.rotary = c.rotary;  // RoPE in every layer instead of wpe / the sinusoid
    if (c.arch == Architecture::kGpt2) {
      if (!c.rotary) {
        TOKVEC_ASSIGN_OR_RETURN(position_table_, r.Matrix2("wpe.weight", c.max_len, d, "[n_positions, n_embd]"));
      }
      stack_.config.norm = NormPlacement::kPreLN;
    } else {
      // Rows for the first kSinusoidRows positions; longer inputs get their table computed per call, so a huge
      // n_positions in config.json cannot make loading allocate without bound.
      if (!c.rotary) {
        TOKVEC_ASSIGN_OR_RETURN(sinusoid_, SinusoidalTable(std::min<int64_t>(c.max_len, kSinusoidRows), d));
      }
      stack_.config.norm = NormPlacement::kPostLN;
    }
    for (int64_t i = 0; i < c.n_layers; ++i) {
      const std::string p = fmt::format("h.{}.", i);
      TransformerBlockWeights b;
      const auto in_out = WeightLayout::kInOut;
      TOKVEC_ASSIGN_OR_RETURN(b.attention_norm, r.Norm(p + "ln_1", d, "n_embd", c.layer_norm_eps));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.qkv, r.Linear(p + "attn.c_attn", d, 3 * d, in_out, "n_embd", "3 * n_embd"));
      TOKVEC_ASSIGN_OR_RETURN(b.attention.out, r.Linear(p + "attn.c_proj", d, d, in_out, "n_embd", "n_embd"));
      b.attention.n_heads = c.n_heads;
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward_norm, r.Norm(p + "ln_2", d, "n_embd", c.layer_norm_eps));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.up, r.Linear(p + "mlp.c_fc", d, f, in_out, "n_embd", "n_inner"));
      TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.down, r.Linear(p + "mlp.c_proj", f, d, in_out, "n_inner", "n_embd"));
      stack_.blocks.push_back(std::move(b));
    }
    if (c.arch == Architecture::kGpt2) {
      TOKVEC_ASSIGN_OR_RETURN(stack_.final_norm, r.Norm("ln_f", d, "n_embd", c.layer_norm_eps));
    }
  }
  stack_.config.attention_scale = c.attention_scale;
  TOKVEC_RETURN_IF_ERROR(BindAttentionKinds());
  for (size_t i = 0; i < stack_.blocks.size(); ++i) {
    TOKVEC_RETURN_IF_ERROR(
        ValidateTransformerBlock(stack_.blocks[i], stack_.config, d, fmt::format("layer {}", i)));
  }
  if (pack_f32_) PackLinears(LinearLayers(), &packed_);
  return absl::OkStatus();
}

absl::Status Model::BindMpnet() {
  // MPNetModel's names (MPNetFor* prefix them "mpnet."): RoBERTa's embeddings without token types, post-LN layers
  // with attention.attn.{q,k,v,o}, and one relative position bias for all layers.
  const ModelConfig& c = config_;
  const int64_t d = c.d_model, f = c.d_ff;
  TOKVEC_ASSIGN_OR_RETURN(std::string prefix,
                          FindPrefix(*weights_, "embeddings.word_embeddings.weight", "mpnet.", c.model_type));
  TensorReader r(weights_.get(), prefix);
  r.set_arch_name(c.model_type);
  TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("embeddings.word_embeddings.weight", c.vocab_size, d,
                                                  "[vocab_size, hidden_size]"));
  TOKVEC_ASSIGN_OR_RETURN(position_table_, r.Matrix2("embeddings.position_embeddings.weight", c.max_position_rows,
                                                     d, "[max_position_embeddings, hidden_size]"));
  token_type_row_ = {};
  TOKVEC_ASSIGN_OR_RETURN(embedding_norm_, r.Norm("embeddings.LayerNorm", d, "hidden_size", c.layer_norm_eps));
  TOKVEC_ASSIGN_OR_RETURN(MatrixView bias_weight,
                          r.Matrix2("encoder.relative_attention_bias.weight", c.relative_attention_buckets, c.n_heads,
                                    "[relative_attention_num_buckets, num_attention_heads]"));
  TOKVEC_ASSIGN_OR_RETURN(RelativePositionBias bias, RelativePositionBias::Make(bias_weight, c.max_len));
  stack_.config.relative_bias = std::make_shared<const RelativePositionBias>(std::move(bias));
  stack_.config.norm = NormPlacement::kPostLN;
  const auto out_in = WeightLayout::kOutIn;
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const std::string p = fmt::format("encoder.layer.{}.", i);
    TransformerBlockWeights b;
    LinearWeights* projections[4] = {&b.attention.q, &b.attention.k, &b.attention.v, &b.attention.out};
    const char* names[4] = {"q", "k", "v", "o"};
    for (int j = 0; j < 4; ++j) {
      TOKVEC_ASSIGN_OR_RETURN(*projections[j], r.Linear(p + "attention.attn." + names[j], d, d, out_in,
                                                        "hidden_size", "hidden_size"));
    }
    b.attention.n_heads = c.n_heads;
    TOKVEC_ASSIGN_OR_RETURN(b.attention_norm, r.Norm(p + "attention.LayerNorm", d, "hidden_size", c.layer_norm_eps));
    TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.up, r.Linear(p + "intermediate.dense", d, f, out_in, "hidden_size",
                                                        "intermediate_size"));
    TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.down, r.Linear(p + "output.dense", f, d, out_in, "intermediate_size",
                                                          "hidden_size"));
    TOKVEC_ASSIGN_OR_RETURN(b.feed_forward_norm, r.Norm(p + "output.LayerNorm", d, "hidden_size", c.layer_norm_eps));
    stack_.blocks.push_back(std::move(b));
  }
  return absl::OkStatus();
}

absl::Status Model::BindModernBert() {
  // ModernBertModel's names (ModernBertFor* save them under "model."): LayerNorms with a bias only when norm_bias,
  // nn.Linear [out, in] with a bias only when attention_bias / mlp_bias.
  const ModelConfig& c = config_;
  const int64_t d = c.d_model, f = c.d_ff;
  TOKVEC_ASSIGN_OR_RETURN(std::string prefix,
                          FindPrefix(*weights_, "embeddings.tok_embeddings.weight", "model.", c.model_type));
  TensorReader r(weights_.get(), prefix);
  r.set_arch_name(c.model_type);
  zero_bias_.assign(static_cast<size_t>(d), 0.0f);
  auto norm = [&](const std::string& name) -> absl::StatusOr<LayerNormWeights> {
    if (c.norm_bias) return r.Norm(name, d, "hidden_size", c.layer_norm_eps);
    LayerNormWeights w{.gamma = {}, .beta = zero_bias_, .eps = static_cast<float>(c.layer_norm_eps)};
    TOKVEC_ASSIGN_OR_RETURN(w.gamma, r.Vector(name + ".weight", d, "[hidden_size]"));
    return w;
  };
  auto linear = [&](const std::string& name, int64_t in, int64_t out, std::string_view in_doc,
                    std::string_view out_doc, bool bias) { return r.OutIn(name, in, out, in_doc, out_doc, bias); };
  TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("embeddings.tok_embeddings.weight", c.vocab_size, d,
                                                  "[vocab_size, hidden_size]"));
  TOKVEC_ASSIGN_OR_RETURN(embedding_norm_, norm("embeddings.norm"));
  stack_.config.norm = NormPlacement::kPreLN;
  stack_.config.rotary = c.rotary;  // global_rope_theta; local layers override it below
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const std::string p = fmt::format("layers.{}.", i);
    TransformerBlockWeights b;
    b.skip_attention_norm = i == 0;  // ModernBertEncoderLayer: nn.Identity() as layer 0's attn_norm
    if (i > 0) {
      TOKVEC_ASSIGN_OR_RETURN(b.attention_norm, norm(p + "attn_norm"));
    }
    TOKVEC_ASSIGN_OR_RETURN(b.attention.qkv, linear(p + "attn.Wqkv", d, 3 * d, "hidden_size", "3 * hidden_size",
                                                    c.qkv_bias));
    TOKVEC_ASSIGN_OR_RETURN(b.attention.out, linear(p + "attn.Wo", d, d, "hidden_size", "hidden_size", c.o_bias));
    b.attention.n_heads = c.n_heads;
    TOKVEC_ASSIGN_OR_RETURN(b.feed_forward_norm, norm(p + "mlp_norm"));
    TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.up, linear(p + "mlp.Wi", d, 2 * f, "hidden_size", "2 * intermediate_size",
                                                      c.mlp_bias));
    TOKVEC_ASSIGN_OR_RETURN(b.feed_forward.down, linear(p + "mlp.Wo", f, d, "intermediate_size", "hidden_size",
                                                        c.mlp_bias));
    b.feed_forward.gated = true;
    if (static_cast<size_t>(i) < c.attention.size() && c.attention[static_cast<size_t>(i)].type != AttentionKindType::kFull) {
      b.rotary = RotaryOptions{.base = static_cast<float>(c.local_rope_theta), .pairing = RotaryPairing::kHalves};
    }
    stack_.blocks.push_back(std::move(b));
  }
  TOKVEC_ASSIGN_OR_RETURN(stack_.final_norm, norm("final_norm"));
  return absl::OkStatus();
}

absl::Status Model::BindDecoder() {
  const ModelConfig& c = config_;
  const int64_t d = c.d_model, f = c.d_ff, dh = c.head_dim();
  TOKVEC_ASSIGN_OR_RETURN(std::string prefix, FindPrefix(*weights_, "embed_tokens.weight", "model.", c.model_type));
  TensorReader r(weights_.get(), prefix);
  r.set_arch_name(c.model_type);
  TOKVEC_ASSIGN_OR_RETURN(token_table_, r.Matrix2("embed_tokens.weight", c.vocab_size, d, "[vocab_size, hidden_size]"));
  const double eps = c.layer_norm_eps;
  auto norm = [&](const std::string& name, int64_t width, std::string_view doc) -> absl::StatusOr<RmsNormWeights> {
    TOKVEC_ASSIGN_OR_RETURN(std::span<const float> gamma, r.Vector(name + ".weight", width, doc));
    return RmsNormWeights{.gamma = gamma, .eps = static_cast<float>(eps)};
  };
  auto linear = [&](const std::string& name, int64_t in, int64_t out, std::string_view in_doc,
                    std::string_view out_doc, bool bias) { return r.OutIn(name, in, out, in_doc, out_doc, bias); };
  const std::string q_doc = "num_attention_heads * head_dim", kv_doc = "num_key_value_heads * head_dim";
  decoder_.config = {.n_heads = c.n_heads, .n_kv_heads = c.n_kv_heads, .head_dim = dh,
                     .rope_theta = c.rotary ? c.rotary->base : 10000.0};
  decoder_.layers.clear();
  for (int64_t i = 0; i < c.n_layers; ++i) {
    const std::string p = fmt::format("layers.{}.", i);
    DecoderLayerWeights w;
    TOKVEC_ASSIGN_OR_RETURN(w.attention_norm, norm(p + "input_layernorm", d, "[hidden_size]"));
    TOKVEC_ASSIGN_OR_RETURN(w.q, linear(p + "self_attn.q_proj", d, c.n_heads * dh, "hidden_size", q_doc, c.qkv_bias));
    TOKVEC_ASSIGN_OR_RETURN(w.k, linear(p + "self_attn.k_proj", d, c.n_kv_heads * dh, "hidden_size", kv_doc,
                                        c.qkv_bias));
    TOKVEC_ASSIGN_OR_RETURN(w.v, linear(p + "self_attn.v_proj", d, c.n_kv_heads * dh, "hidden_size", kv_doc,
                                        c.qkv_bias));
    TOKVEC_ASSIGN_OR_RETURN(w.o, linear(p + "self_attn.o_proj", c.n_heads * dh, d, q_doc, "hidden_size", c.o_bias));
    if (c.qk_norm) {
      TOKVEC_ASSIGN_OR_RETURN(w.q_norm, norm(p + "self_attn.q_norm", dh, "[head_dim]"));
      TOKVEC_ASSIGN_OR_RETURN(w.k_norm, norm(p + "self_attn.k_norm", dh, "[head_dim]"));
    }
    TOKVEC_ASSIGN_OR_RETURN(w.feed_forward_norm, norm(p + "post_attention_layernorm", d, "[hidden_size]"));
    TOKVEC_ASSIGN_OR_RETURN(w.gate, linear(p + "mlp.gate_proj", d, f, "hidden_size", "intermediate_size", c.mlp_bias));
    TOKVEC_ASSIGN_OR_RETURN(w.up, linear(p + "mlp.up_proj", d, f, "hidden_size", "intermediate_size", c.mlp_bias));
    TOKVEC_ASSIGN_OR_RETURN(w.down, linear(p + "mlp.down_proj", f, d, "intermediate_size", "hidden_size", c.mlp_bias));
    decoder_.layers.push_back(std::move(w));
  }
  TOKVEC_ASSIGN_OR_RETURN(decoder_.final_norm, norm("norm", d, "[hidden_size]"));
  TOKVEC_RETURN_IF_ERROR(ValidateDecoderStack(decoder_, d));
  if (pack_f32_) PackLinears(LinearLayers(), &packed_);
  return absl::OkStatus();
}

absl::Status Model::BindAttentionKinds() {
  const ModelConfig& c = config_;
  const std::string prefix = weights_->Find("transformer.wte.weight") != nullptr ? "transformer." : "";
  for (size_t layer = 0; layer < c.attention.size() && layer < stack_.blocks.size(); ++layer) {
    AttentionKindWeights& w = stack_.blocks[layer].attention.kind;
    w.kind = c.attention[layer];
    w.seed = c.attention_seed + layer;
    if (w.kind.type == AttentionKindType::kPerformer) {
      TOKVEC_ASSIGN_OR_RETURN(Matrix features, PerformerFeatures(w.kind.features, c.head_dim(), w.seed));
      w.performer_features = std::make_shared<const Matrix>(std::move(features));
    }
    if (w.kind.type == AttentionKindType::kLinformer) {
      TensorReader r(weights_.get(), prefix);
      r.set_arch_name(c.model_type);
      const std::string doc = fmt::format("[{}, n_positions] (attention {})", w.kind.rank, AttentionKindName(w.kind));
      const std::string p = fmt::format("h.{}.attn.", layer);
      TOKVEC_ASSIGN_OR_RETURN(w.linformer_e, r.Matrix2(p + "linformer_e", w.kind.rank, c.max_len, doc));
      TOKVEC_ASSIGN_OR_RETURN(w.linformer_f, r.Matrix2(p + "linformer_f", w.kind.rank, c.max_len, doc));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Matrix> Model::Embed(std::span<const uint32_t> ids, std::span<const uint8_t> type_ids) const {
  const int64_t seq_len = static_cast<int64_t>(ids.size());
  const int64_t d = config_.d_model;
  if (!type_ids.empty() && type_ids.size() != ids.size()) {
    return absl::InvalidArgumentError(
        fmt::format("{} token type ids for {} tokens: give one per token, or none", type_ids.size(), ids.size()));
  }
  TOKVEC_ASSIGN_OR_RETURN(Matrix x, EmbedTokens(token_table_, ids));
  switch (config_.arch) {
    case Architecture::kGpt2:
    case Architecture::kGptNeo:
      if (!config_.rotary) TOKVEC_RETURN_IF_ERROR(AddPositions(position_table_, 0, &x));
      break;
    case Architecture::kLlama:
    case Architecture::kQwen2:
    case Architecture::kQwen3:
      break;  // RoPE inside every layer
    case Architecture::kEncoder: {
      // Vaswani et al. 2017, §3.4: "we multiply those weights by sqrt(d_model)".
      const float scale = static_cast<float>(std::sqrt(static_cast<double>(d)));
      for (float& v : x.storage()) v *= scale;
      if (config_.rotary) break;
      if (seq_len <= sinusoid_.rows()) {
        TOKVEC_RETURN_IF_ERROR(AddPositions(sinusoid_.view(), 0, &x));
      } else {
        TOKVEC_ASSIGN_OR_RETURN(Matrix table, SinusoidalTable(seq_len, d));  // [T, D]
        TOKVEC_RETURN_IF_ERROR(AddPositions(table.view(), 0, &x));
      }
      break;
    }
    case Architecture::kRoberta:
    case Architecture::kBert: {
      // RoBERTa: position ids pad_token_id + 1, + 2, ... (transformers' create_position_ids_from_input_ids, no
      // padding). BERT: 0, 1, ... (BertEmbeddings' position_ids buffer). Token type 0 for every token.
      const int64_t first = config_.arch == Architecture::kBert ? 0 : config_.pad_token_id + 1;
      TOKVEC_RETURN_IF_ERROR(AddPositions(position_table_, first, &x));
      for (int64_t t = 0; t < seq_len && !token_type_row_.empty(); ++t) {  // DistilBERT: no token types
        const uint8_t type = type_ids.empty() ? 0 : type_ids[static_cast<size_t>(t)];
        if (type >= token_types_.rows) {
          return absl::InvalidArgumentError(fmt::format(
              "token {} has type id {}, but the model has {} token type{} (type_vocab_size)", t, type,
              token_types_.rows, token_types_.rows == 1 ? "" : "s"));
        }
        const float* type_row = token_types_.row(type);
        float* row = x.row(t);
        for (int64_t j = 0; j < d; ++j) row[j] += type_row[j];
      }
      TOKVEC_ASSIGN_OR_RETURN(x, LayerNorm(x.view(), *embedding_norm_));
      break;
    }
    case Architecture::kModernBert:  // no positions here (RoPE in every layer), no token types
      TOKVEC_ASSIGN_OR_RETURN(x, LayerNorm(x.view(), *embedding_norm_));
      break;
  }
  return x;
}

absl::StatusOr<ModelOutput> Model::Forward(std::span<const uint32_t> ids, const ForwardOptions& options) const {
  const int64_t seq_len = static_cast<int64_t>(ids.size());
  const int64_t d = config_.d_model;
  if (seq_len > config_.max_len) {
    return absl::OutOfRangeError(fmt::format("{} tokens is longer than the model's maximum of {} tokens", seq_len,
                                             config_.max_len));
  }
  for (int64_t layer : options.keep_weights_of) {
    if (layer < 0 || layer >= config_.n_layers) {
      return absl::OutOfRangeError(
          fmt::format("layer {} does not exist; the model has layers 0..{}", layer, config_.n_layers - 1));
    }
  }
  ModelOutput out;
  if (seq_len == 0) {
    out.hidden = Matrix(0, d);
    return out;
  }
  // 1. Token (+ position, + type) embeddings: x [T, D].
  TOKVEC_ASSIGN_OR_RETURN(Matrix x, Embed(ids, options.type_ids));
  if (config_.decoder()) {
    TOKVEC_ASSIGN_OR_RETURN(DecoderOutput decoded, RunDecoderStack(decoder_, x.view(),
                                                                   {.threads = options.threads,
                                                                    .keep_weights_of = options.keep_weights_of}));
    out.hidden = std::move(decoded.hidden);
    out.attention_weights = std::move(decoded.attention_weights);
    return out;
  }
  // 2. The blocks (and ln_f).
  StackOptions stack_options;
  stack_options.threads = options.threads;
  stack_options.keep_weights_of = options.keep_weights_of;
  TOKVEC_ASSIGN_OR_RETURN(StackOutput stack_out, RunTransformerStack(stack_, x.view(), stack_options));
  out.hidden = std::move(stack_out.hidden);
  out.attention_weights = std::move(stack_out.attention_weights);
  return out;
}

std::unique_ptr<ForwardBatchWorkspace> Model::TakeWorkspace() const {
  std::lock_guard<std::mutex> lock(workspaces_mutex_);
  if (workspaces_.empty()) return std::make_unique<ForwardBatchWorkspace>();
  std::unique_ptr<ForwardBatchWorkspace> workspace = std::move(workspaces_.back());
  workspaces_.pop_back();
  return workspace;
}

void Model::GiveBackWorkspace(std::unique_ptr<ForwardBatchWorkspace> workspace) const {
  std::lock_guard<std::mutex> lock(workspaces_mutex_);
  if (workspace != nullptr && workspaces_.size() < kKeptWorkspaces) workspaces_.push_back(std::move(workspace));
}

absl::StatusOr<std::vector<Matrix>> Model::ForwardBatch(const std::vector<std::vector<uint32_t>>& batch,
                                                        int threads, ForwardBatchWorkspace* workspace,
                                                        const std::vector<std::vector<uint8_t>>* type_ids) const {
  std::vector<Matrix> out;
  if (batch.empty()) return out;
  if (type_ids != nullptr && type_ids->size() != batch.size()) {
    return absl::InvalidArgumentError(
        fmt::format("ForwardBatch: {} token type id lists for {} sequences", type_ids->size(), batch.size()));
  }
  const int64_t d = config_.d_model;
  const int64_t n = static_cast<int64_t>(batch.size());
  std::vector<int64_t> lengths, starts;  // [B] each
  int64_t rows = 0;
  for (int64_t b = 0; b < n; ++b) {
    const int64_t length = static_cast<int64_t>(batch[b].size());
    if (length > config_.max_len) {
      return absl::OutOfRangeError(fmt::format("{} tokens is longer than the model's maximum of {} tokens", length,
                                               config_.max_len));
    }
    if (length != static_cast<int64_t>(batch[0].size()) && !RaggedBatches()) {
      return absl::InvalidArgumentError(fmt::format(
          "ForwardBatch: sequence {} has {} tokens, sequence 0 has {} ({} models batch equal lengths only)", b,
          length, batch[0].size(), config_.model_type));
    }
    lengths.push_back(length);
    starts.push_back(rows);
    rows += length;
  }
  ForwardBatchWorkspace local;
  ForwardBatchWorkspace& ws = workspace != nullptr ? *workspace : local;
  // 1. Embeddings of every sequence, stacked: x [rows, D], sequence b in rows [starts[b], starts[b] + lengths[b]).
  float* x = ws.x.Reserve(std::max<int64_t>(rows, 1) * d);
  for (int64_t b = 0; b < n; ++b) {
    if (lengths[b] == 0) continue;
    const std::span<const uint8_t> types =
        type_ids != nullptr ? std::span<const uint8_t>((*type_ids)[b]) : std::span<const uint8_t>();
    TOKVEC_ASSIGN_OR_RETURN(Matrix one, Embed(batch[b], types));  // [T, D]
    std::copy(one.data(), one.data() + one.size(), x + starts[b] * d);
  }
  // 2. The blocks over the whole batch (alternating between the two buffers), then ln_f.
  Matrix decoded;
  if (rows > 0 && config_.decoder()) {
    TOKVEC_ASSIGN_OR_RETURN(DecoderOutput result,
                            RunDecoderStack(decoder_, {x, rows, d}, {.threads = threads, .seq_len = lengths[0]}));
    decoded = std::move(result.hidden);
    x = decoded.data();
  } else if (rows > 0) {
    float* y = ws.y.Reserve(rows * d);
    for (size_t layer = 0; layer < stack_.blocks.size(); ++layer) {
      absl::Status s = RunTransformerBlockRaggedInto(stack_.blocks[layer], stack_.config, {x, rows, d}, lengths,
                                                     threads, &ws.blocks, y);
      if (!s.ok()) return absl::Status(s.code(), fmt::format("layer {}: {}", layer, std::string(s.message())));
      std::swap(x, y);
    }
    if (stack_.final_norm) LayerNormInto({x, rows, d}, *stack_.final_norm, x);  // in place: row by row
  }
  // 3. Split back into sequences.
  for (int64_t b = 0; b < n; ++b) {
    Matrix one(lengths[b], d);
    std::copy(x + starts[b] * d, x + (starts[b] + lengths[b]) * d, one.data());
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace tokvec
