// A trainable GPT-2 (Radford et al. 2019), or tokvec's encoder (Vaswani et al. 2017: post-LN, bidirectional,
// sinusoidal positions, no wpe / ln_f, LM head tied to wte): the one owner of its parameters, their gradients and
// the activations the backward pass needs (llm.c's train_gpt2.c layout: every tensor in one flat buffer, walked
// by name).
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Gpt2Model> model, Gpt2Model::Load("models/tiny"));
//   model->ZeroGrad();
//   TOKVEC_ASSIGN_OR_RETURN(LossSum loss, model->ForwardBackward(inputs, targets, B, T, 1.0f, threads));
//   // model->grads() now holds d(mean loss)/d(parameter), same layout as model->params()
//   TOKVEC_RETURN_IF_ERROR(model->Save("out/model.safetensors"));
//
// Reads tokvec's own `init --arch gpt2` models and Hugging Face GPT-2 directories (names optionally prefixed
// "transformer."; lm_head.weight is wte, tied, as in GPT-2). Writes the Hugging Face names without prefix, which
// `tokvec embed/attend` and transformers' GPT2LMHeadModel both read. Hugging Face RoBERTa directories train too,
// with their MLM head (training/roberta_layout.h: how their tensors map onto these buffers and back).
// gpt2 and encoder models train with any kind of attention per layer (config "attention", docs/attention_kinds.md):
// the sparse kinds through the tiled attention kernels with a SparsePattern, linformer (with its learned E, F
// tensors) and the kernel kinds through training/attention_kind_kernels.h; the pattern seeds and Performer features
// are those inference uses, so what fit trains is what embed runs. GPT-Neo and RoBERTa with other kinds: not yet.
//
// Shapes: B batch, T seq_len (≤ n_positions), N = B·T, C d_model, H heads, F feed-forward width, V vocab_size.
#ifndef TOKVEC_TRAINING_GPT2_MODEL_H_
#define TOKVEC_TRAINING_GPT2_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "attention/kernel_attention.h"
#include "attention/sparse_pattern.h"
#include "embeddings/safetensors.h"
#include "models/model_config.h"
#include "training/roberta_layout.h"

namespace tokvec::training {

// One parameter tensor inside the flat buffers.
struct ParameterInfo {
  std::string name;            // Hugging Face name, e.g. "h.0.attn.c_attn.weight"
  std::vector<int64_t> shape;  // e.g. {C, 3C}
  int64_t offset = 0;          // first float in params() / grads()
  int64_t size = 0;            // floats
  // AdamW decays it: tensors with 2 or more dimensions (matrices and embedding tables), not biases or LayerNorm
  // (nanoGPT's configure_optimizers).
  bool decay() const { return shape.size() >= 2; }
};

// Loss of a batch: the sum over rows with a target and how many there were (mean = sum / count).
struct LossSum {
  double sum = 0.0;
  int64_t count = 0;
  double mean() const { return count > 0 ? sum / static_cast<double>(count) : 0.0; }
};

// Appends a tensor of `shape` after the last one of `infos` (the buffer layouts are built with it).
void AppendParameter(std::vector<ParameterInfo>& infos, std::string name, std::vector<int64_t> shape);

// The parameter tensors of a gpt2 config in buffer order: wte, wpe, per layer ln_1.{weight,bias},
// attn.c_attn.{weight,bias}, attn.c_proj.{weight,bias}, ln_2.{weight,bias}, mlp.c_fc.{weight,bias},
// mlp.c_proj.{weight,bias}, then ln_f.{weight,bias}, then each linformer layer's attn.linformer_{e,f}
// [K, n_positions].
std::vector<ParameterInfo> Gpt2Parameters(const ModelConfig& config);

class Gpt2Model {
 public:
  // DIR/config.json (model_type gpt2) and DIR/model.safetensors.
  static absl::StatusOr<std::unique_ptr<Gpt2Model>> Load(const std::string& dir);
  // From a parsed config and an open weights file.
  // head_seed: a RoBERTa checkpoint without lm_head gets a fresh head drawn from it (head_initialized()).
  static absl::StatusOr<std::unique_ptr<Gpt2Model>> FromWeights(const ModelConfig& config,
                                                                SafetensorsFile& weights, uint64_t head_seed = 0);
  bool head_initialized() const { return head_initialized_; }

  const ModelConfig& config() const { return config_; }
  const std::vector<ParameterInfo>& parameters() const { return infos_; }
  const ParameterInfo* Find(std::string_view name) const;
  std::vector<float>& params() { return params_; }
  const std::vector<float>& params() const { return params_; }
  std::vector<float>& grads() { return grads_; }
  const std::vector<float>& grads() const { return grads_; }

  void ZeroGrad();
  // Dropout probability of ForwardBackward (0 turns it off), at GPT-2's places: after the embeddings (embd_pdrop),
  // on the attention weights (attn_pdrop) and on each sublayer's output before the residual add (resid_pdrop).
  // Evaluate never drops.
  void SetDropout(float p) { dropout_ = p; }
  float dropout() const { return dropout_; }

  // inputs, targets: [B, T] (targets may be kIgnoreIndex). Adds d(loss_scale · mean loss)/dθ to grads() and
  // returns the loss. InvalidArgument for T > n_positions, an id >= vocab_size or a bad target. With dropout on,
  // the masks are a function of dropout_seed (training/kernels.h DropoutSeed / DropoutUniform).
  // key_lengths ([B], each in [1, T], or empty): keys at positions >= key_lengths[b] are padding, masked in
  // attention for every query of row b (encoder, --lines examples).
  absl::StatusOr<LossSum> ForwardBackward(const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets,
                                          int64_t B, int64_t T, float loss_scale, int threads,
                                          uint64_t dropout_seed = 0, std::span<const int32_t> key_lengths = {});
  // The loss only (no gradient, no kept activations beyond one batch).
  absl::StatusOr<LossSum> Evaluate(const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets,
                                   int64_t B, int64_t T, int threads, std::span<const int32_t> key_lengths = {});

  // A loss on the final hidden states instead of the LM head (SimCSE, training/contrastive.h): hidden [B·T, C]
  // (after ln_f for gpt2, the last block's output for the encoder); when dhidden is not null (training) the head
  // writes d(loss_scale · loss)/d(hidden) into it ([B·T, C], zeroed before the call). Returns the loss.
  using HiddenHead = std::function<absl::StatusOr<LossSum>(const float* hidden, float* dhidden)>;
  // Forward with dropout, the head, and the backward pass from its d(hidden): gradients are added to grads().
  absl::StatusOr<LossSum> ForwardBackwardHidden(const std::vector<int32_t>& inputs, int64_t B, int64_t T,
                                                int threads, uint64_t dropout_seed,
                                                std::span<const int32_t> key_lengths, const HiddenHead& head);
  // Forward without dropout and the head (dhidden = null): no gradient.
  absl::StatusOr<LossSum> EvaluateHidden(const std::vector<int32_t>& inputs, int64_t B, int64_t T, int threads,
                                         std::span<const int32_t> key_lengths, const HiddenHead& head);

  // The parameters (or any buffer of the same layout) as named tensors, `prefix` before each name.
  std::vector<NamedTensor> Named(const std::vector<float>& buffer, std::string_view prefix = "") const;
  // A buffer of params()' layout as the checkpoint holds it (RoBERTa: RobertaForMaskedLM's names and nn.Linear
  // layout; gpt2 and encoder: Named()'s tensors, copied).
  std::vector<HfTensor> CheckpointTensors(const std::vector<float>& buffer) const;
  // Writes params() as model.safetensors (F32, Hugging Face names).
  absl::Status Save(const std::string& path) const;

 private:
  Gpt2Model() = default;
  absl::Status CheckBatch(const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets, int64_t B,
                          int64_t T, std::span<const int32_t> key_lengths) const;
  // Bidirectional and post-LN: tokvec's encoder and RoBERTa.
  bool encoder() const { return config_.arch != Architecture::kGpt2; }
  bool roberta() const { return config_.arch == Architecture::kRoberta; }
  // RoBERTa's MLM head on hidden [N, C]: acts_.head_out [N, C] = LN(gelu(dense(hidden))), the decoder's input.
  void RobertaHeadForward(const float* hidden, int threads);
  // d(hidden) [N, C] (written) from d(head_out) (dhead, used as scratch); the head's gradients are accumulated.
  void RobertaHeadBackward(const float* hidden, float* dhead, float* dhidden, int threads);
  // The LM head's cross-entropy on the model's output `out` [N, C]: the tied decoder (RoBERTa: after its head, with
  // lm_head.bias). dout (not null: training) gets d(loss)/d(out) [N, C].
  double LmHeadLoss(const float* out, const int32_t* targets, float grad_scale, float* dout, int64_t* count,
                    int threads);
  // Gradients of a sublayer's input, kept between the backward steps of one call.
  struct BackwardScratch {
    std::vector<float> dropped;  // [N, C] a gradient through a dropout mask
    std::vector<float> datty;    // [N, C] d(attention output)
    std::vector<float> dhidden;  // [N, F] d(c_fc output)
    std::vector<float> dact;     // [N, F] d(activation output)
    std::vector<float> dqkv;     // [N, 3C]
  };
  // Layer l's sublayers, shared by both placements of the LayerNorms (gpt2 pre-LN, encoder post-LN):
  // acts_.scratch [N, C] = drop(c_proj(attention(c_attn(x)))) (causal for gpt2), or drop(c_proj(act(c_fc(x)))).
  void AttentionSublayerForward(int64_t l, const float* x, float p, uint64_t dropout_seed, int threads);
  void FeedForwardForward(int64_t l, const float* x, float p, uint64_t dropout_seed, int threads);
  // dx [N, C] (written) from dout = d(that output) [N, C]; the sublayer's weight gradients are accumulated.
  void AttentionSublayerBackward(int64_t l, const float* x, const float* dout, float* dx, float p,
                                 uint64_t dropout_seed, int threads, BackwardScratch& s);
  void FeedForwardBackward(int64_t l, const float* x, const float* dout, float* dx, float p, uint64_t dropout_seed,
                           int threads, BackwardScratch& s);
  // Runs the blocks (and gpt2's ln_f) on inputs; activations stay in acts_. Returns the LM head's input [N, C].
  // Layer l's activations: gpt2 ln1 = LN1(x), residual2 = x + attn(ln1), ln2 = LN2(residual2),
  // residual3 = residual2 + ffn(ln2) (the output); encoder (post-LN) residual2 = x + attn(x), ln1 = LN1(residual2),
  // residual3 = ln1 + ffn(ln1), ln2 = LN2(residual3) (the output).
  // p: dropout probability (0 for evaluation).
  const float* Forward(const std::vector<int32_t>& inputs, int64_t B, int64_t T, int threads, float p,
                       uint64_t dropout_seed);
  // The backward pass of the last Forward from dout = d(its output) [N, C] (for gpt2 through ln_f): every
  // parameter's gradient is accumulated. dout is used as scratch.
  void Backward(const std::vector<int32_t>& inputs, std::vector<float>& dout, float p, uint64_t dropout_seed,
                int threads);
  // One layer's kind of attention (config "attention"; full by default) and what its kernels need.
  struct LayerAttention {
    AttentionKind kind;
    uint64_t seed = 0;                                  // attention_seed + layer: BigBird blocks, Performer W
    std::shared_ptr<const Matrix> performer_features;  // performer: W [M, Dh]
    int linformer_e = -1;                               // linformer: index in infos_ of E (F follows)
  };
  absl::Status BindAttentionKinds();
  // A sparse kind's pattern for length T (nullopt for the others).
  std::optional<SparsePattern> Pattern(const LayerAttention& la, int64_t T) const;
  KernelFeatureMap FeatureMap(const LayerAttention& la) const;
  float* P(int index) { return params_.data() + infos_[static_cast<size_t>(index)].offset; }
  float* G(int index) { return grads_.data() + infos_[static_cast<size_t>(index)].offset; }

  ModelConfig config_;
  std::vector<ParameterInfo> infos_;  // wte, wpe, per layer 12 tensors (ln_1.w/b, c_attn.w/b, attn.c_proj.w/b,
                                      // ln_2.w/b, c_fc.w/b, mlp.c_proj.w/b), ln_f.w/b
  std::vector<float> params_;         // every parameter, in infos_ order
  std::vector<float> grads_;          // same layout
  float dropout_ = 0.0f;
  bool head_initialized_ = false;
  int first_layer_ = 2;                   // index in infos_ of h.0.ln_1.weight (1 without wpe, 5 for RoBERTa)
  std::vector<float> sinusoid_;           // [max_len, C] (encoder)
  const int32_t* key_lengths_ = nullptr;  // [B] during a call, or null
  std::vector<LayerAttention> layer_attention_;  // [L]

  // Activations of the last Forward, per layer l where marked [L, ...].
  struct Activations {
    int64_t B = 0, T = 0;
    std::vector<float> encoded;   // [N, C] wte[ids] + wpe
    std::vector<float> ln1;       // [L, N, C]
    std::vector<float> ln1_mean;  // [L, N]
    std::vector<float> ln1_rstd;  // [L, N]
    std::vector<float> qkv;       // [L, N, 3C]
    std::vector<float> atty;      // [L, N, C] attention output before c_proj
    std::vector<float> lse;       // [L, B, H, T]
    std::vector<float> residual2; // [L, N, C] x + attn
    std::vector<float> ln2;       // [L, N, C]
    std::vector<float> ln2_mean;  // [L, N]
    std::vector<float> ln2_rstd;  // [L, N]
    std::vector<float> fch;       // [L, N, F] c_fc output
    std::vector<float> fch_act;   // [L, N, F] after the activation
    std::vector<float> residual3; // [L, N, C] block output
    std::vector<float> lnf;       // [N, C]
    std::vector<float> lnf_mean;  // [N]
    std::vector<float> lnf_rstd;  // [N]
    std::vector<float> scratch;   // [N, C] c_proj outputs
    // RoBERTa: the embedding sum before its LayerNorm, and the MLM head's dense / gelu / LayerNorm outputs.
    std::vector<float> emb_in;     // [N, C]
    std::vector<float> emb_mean;   // [N]
    std::vector<float> emb_rstd;   // [N]
    std::vector<float> head_dense; // [N, C]
    std::vector<float> head_act;   // [N, C]
    std::vector<float> head_out;   // [N, C]
    std::vector<float> head_mean;  // [N]
    std::vector<float> head_rstd;  // [N]
  } acts_;
};

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_GPT2_MODEL_H_
