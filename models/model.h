// A model: config.json + model.safetensors turned into embedding tables and a transformer stack.
//
// Architectures (see model_config.h) and the tensors each reads, by Hugging Face's names; a checkpoint may prefix
// every name with "transformer." (GPT-2 *LMHeadModel) or "roberta." (RoBERTa *ForMaskedLM); other tensors
// (lm_head.*, attn.bias masks, pooler.*, position_ids) are ignored:
//
//   gpt2 (Radford et al. 2019), tokvec's own gpt2 too:
//     wte.weight [V, D], wpe.weight [N, D],
//     h.{i}.ln_1.{weight,bias} [D], h.{i}.attn.c_attn.{weight [D, 3D], bias [3D]},
//     h.{i}.attn.c_proj.{weight [D, D], bias [D]}, h.{i}.ln_2.{weight,bias} [D],
//     h.{i}.mlp.c_fc.{weight [D, F], bias [F]}, h.{i}.mlp.c_proj.{weight [F, D], bias [D]}, ln_f.{weight,bias} [D]
//     (Conv1D weights, [in, out]).  x = wte[ids] + wpe[0..T); pre-LN causal blocks; ln_f.
//   encoder (Vaswani et al. 2017): the gpt2 names without wpe and ln_f; ln_1 / ln_2 are the LayerNorms after the
//     attention and feed-forward residuals (post-LN). x = wte[ids] * sqrt(D) + sinusoid[0..T) (§3.4, §3.5);
//     bidirectional blocks.
//   gpt_neo (Black et al. 2021): wte.weight, wpe.weight, h.{i}.ln_1.*, h.{i}.attn.attention.{q,k,v}_proj.weight
//     [D, D] (no bias), h.{i}.attn.attention.out_proj.{weight [D, D], bias}, h.{i}.ln_2.*, h.{i}.mlp.c_fc.{weight
//     [F, D], bias}, h.{i}.mlp.c_proj.{weight [D, F], bias}, ln_f.* (nn.Linear, [out, in]). As gpt2, but scores are
//     not scaled and "local" layers attend to window_size tokens (config.attention).
//   Any of them with config.attention kinds (attention_kind.h): a linformer layer also reads
//     h.{i}.attn.linformer_e and h.{i}.attn.linformer_f [K, N].
//   roberta (Liu et al. 2019):
//     embeddings.{word_embeddings [V, D], position_embeddings [P, D], token_type_embeddings [types, D]}.weight,
//     embeddings.LayerNorm.{weight,bias}, encoder.layer.{i}.attention.self.{query,key,value}.{weight [D, D], bias},
//     encoder.layer.{i}.attention.output.{dense.*, LayerNorm.*}, encoder.layer.{i}.intermediate.dense.{weight [F, D],
//     bias}, encoder.layer.{i}.output.{dense.weight [D, F], dense.bias, LayerNorm.*} (nn.Linear, [out, in]).
//     x = LN(word[ids] + position[pad_token_id + 1 + t] + token_type[0]); post-LN bidirectional blocks.
//   bert (Devlin et al. 2018): RoBERTa's names (prefix "bert." in BertFor* checkpoints; pooler.* and cls.* heads
//     ignored); x = LN(word[ids] + position[t] + token_type[0]), positions from 0.
//   distilbert (Sanh et al. 2019; prefix "distilbert." in DistilBertFor* checkpoints): embeddings.{word_embeddings,
//     position_embeddings}.weight (the latter made by create_sinusoidal_embeddings when absent and
//     sinusoidal_pos_embds), embeddings.LayerNorm.*, transformer.layer.{i}.attention.{q_lin,k_lin,v_lin,out_lin}.*,
//     transformer.layer.{i}.sa_layer_norm.*, transformer.layer.{i}.ffn.{lin1 [F, D], lin2 [D, F]}.*,
//     transformer.layer.{i}.output_layer_norm.*. BERT's network without token types: x = LN(word[ids] +
//     position[t]).
//   mpnet (Song et al. 2020; prefix "mpnet." in MPNetFor* checkpoints): embeddings.{word_embeddings,
//     position_embeddings}.weight, embeddings.LayerNorm.*, encoder.layer.{i}.attention.attn.{q,k,v,o}.{weight [D, D],
//     bias}, encoder.layer.{i}.attention.LayerNorm.*, encoder.layer.{i}.intermediate.dense.*, encoder.layer.{i}.
//     output.{dense.*, LayerNorm.*}, encoder.relative_attention_bias.weight [32, H]. RoBERTa's network without token
//     types (x = LN(word[ids] + position[pad_token_id + 1 + t])), and every layer's head h adds
//     bias[bucket(j - i)][h] to its scaled scores (relative_position_bias.h).
//   modernbert (Warner et al. 2024; prefix "model." in ModernBertFor* checkpoints, head.* / decoder.* ignored):
//     embeddings.tok_embeddings.weight [V, D], embeddings.norm.weight [D], layers.{i}.attn_norm.weight [D] (i > 0:
//     layer 0 has none), layers.{i}.attn.Wqkv.weight [3D, D], layers.{i}.attn.Wo.weight [D, D],
//     layers.{i}.mlp_norm.weight [D], layers.{i}.mlp.Wi.weight [2F, D], layers.{i}.mlp.Wo.weight [D, F],
//     final_norm.weight [D] (+ .bias on the norms with norm_bias, on Wqkv / attn.Wo with attention_bias, on Wi /
//     mlp.Wo with mlp_bias). x = LN(tok[ids]); pre-LN bidirectional blocks with RoPE (global_rope_theta, or
//     local_rope_theta on the local layers, which see |i - j| <= local_attention / 2), GeGLU; final_norm.
//   llama / qwen2 / qwen3 (decoder_block.h), names as a *ForCausalLM saves them under "model." or, as
//     sentence-transformers saves Qwen3-Embedding, without a prefix (nn.Linear, [out, in]; lm_head.* ignored):
//     embed_tokens.weight [V, D], layers.{i}.input_layernorm.weight [D],
//     layers.{i}.self_attn.{q_proj [H·Dh, D], k_proj [Hkv·Dh, D], v_proj [Hkv·Dh, D], o_proj [D, H·Dh]}.weight
//     (+ .bias on q/k/v for qwen2, on q/k/v/o with attention_bias), layers.{i}.self_attn.{q_norm,k_norm}.weight
//     [Dh] (qwen3), layers.{i}.post_attention_layernorm.weight [D], layers.{i}.mlp.{gate_proj [F, D], up_proj
//     [F, D], down_proj [D, F]}.weight (+ .bias with mlp_bias), norm.weight [D]. x = embed_tokens[ids]; RMSNorm
//     pre-norm causal blocks with RoPE and grouped-query attention; final RMSNorm.
//
// Weights come from DIR/model.safetensors, or from the shards DIR/model.safetensors.index.json lists
// (safetensors_shards.h). pytorch_model.bin (a pickle) is refused with a message saying how to convert it.
// On a CPU with AVX-512F the layers' projections are also copied once into the panels of tokvec's own GEMM
// (pack_linears.h, packed_gemm.h; as much memory again as those f32 weights), which the batched forward then uses.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, Model::Load("models/gpt2"));
//   TOKVEC_ASSIGN_OR_RETURN(ModelOutput out, model->Forward(ids, {.threads = 2, .keep_weights_of = {0}}));
//   // out.hidden: [T, D] contextual vectors; out.attention_weights.at(0)[h]: [T, T]
//
// Errors name the file and tensor: a missing tensor (NotFound, with the names tried), a wrong shape
// (InvalidArgument, with the expected shape and the config keys it follows from), an unsupported dtype.
#ifndef TOKVEC_MODELS_MODEL_H_
#define TOKVEC_MODELS_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "embeddings/safetensors.h"
#include "embeddings/safetensors_shards.h"
#include "kernels/huge_page_buffer.h"
#include "kernels/low_precision_linear.h"
#include "kernels/pack_linears.h"
#include "kernels/tensor.h"
#include "models/batched_block.h"
#include "models/decoder_block.h"
#include "models/model_config.h"
#include "models/transformer_block.h"

namespace tokvec {

struct ForwardOptions {
  int threads = 1;
  std::vector<int64_t> keep_weights_of;  // layers whose attention weights to return
  // [T] token type (segment) ids, as a tokenizer's pair template gives them (sequence_encoding.h); empty: all 0.
  // RoBERTa and BERT add token_type_embeddings[type] (a type >= type_vocab_size is InvalidArgument); the models
  // without token types (GPT-2, GPT-Neo, DistilBERT, the decoders) take them and ignore them, as Hugging Face's do.
  std::span<const uint8_t> type_ids;
};

// What Model::ForwardBatch reuses from layer to layer and, passed again, from call to call: the hidden states of
// the batch in two buffers the layers alternate between, and a block's scratch buffers and threads. Without it
// every layer of every call took fresh memory: 12 layers x ~5 MB per 128-token text, first-touch page faults
// were 3-4% of a 2-thread `tokvec embed --lines`. One per calling thread (not thread-safe).
struct ForwardBatchWorkspace {
  HugePageBuffer x, y;           // [B·T, D] each
  BatchedBlockWorkspace blocks;  // models/batched_block.h
};

struct ModelOutput {
  Matrix hidden;                                            // [T, D]
  std::map<int64_t, std::vector<Matrix>> attention_weights;  // layer -> [H] x [T, T]
};

class Model {
 public:
  // Reads DIR/config.json and DIR/model.safetensors (or DIR/model.safetensors.index.json and its shards).
  // `dtype` (low_precision_linear.h) is the precision the linear layers run in, as UseLinearDtype sets it; loading
  // with it packs the weights once for that dtype only (no f32 copy for the AVX-512 GEMM first).
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& dir, LinearDtype dtype = LinearDtype::kF32);
  // The same from explicit files; `weights_path` may be a model.safetensors.index.json.
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& config_path, const std::string& weights_path,
                                                     LinearDtype dtype = LinearDtype::kF32);

  const ModelConfig& config() const { return config_; }
  // True for gpt2 and gpt_neo (a token sees only earlier tokens).
  bool causal() const { return config_.causal(); }

  // Runs ids ([T], special tokens included) through the model. T == 0 gives a [0, D] output; T > max_len is
  // OutOfRange naming both; an id >= vocab_size is InvalidArgument naming it. Thread-safe (const).
  absl::StatusOr<ModelOutput> Forward(std::span<const uint32_t> ids, const ForwardOptions& options = {}) const;

  // Packs every big linear layer (attention projections, feed-forward; the decoders' q/k/v/o/gate/up/down) in
  // `dtype` (low_precision_linear.h) and runs them so from then on; embeddings, norms and attention stay f32.
  // kF32 is a no-op. FailedPrecondition when the CPU lacks the instructions. Call before sharing the model
  // between threads (model_dtype.cc).
  absl::Status UseLinearDtype(LinearDtype dtype);
  LinearDtype linear_dtype() const { return linear_dtype_; }
  // Bytes of the big linear layers' weights as they run: f32, or their bf16 / int8 packing (scales included).
  size_t LinearWeightBytes() const;

  // Several sequences at once (models/batched_block.h: the projections and feed-forward run as single GEMMs
  // over all their rows, attention per sequence): hidden states [B] x [T_b, D], the same as Forward on each
  // sequence within 1e-5, and a sequence's vectors do not depend on the others in the batch. Sequences of
  // different lengths need a model whose every layer runs per sequence (RaggedBatches(); else InvalidArgument).
  // No attention weights. `workspace` may be null (buffers are then allocated for this call).
  // `type_ids` (optional): [B] x [T_b] token type ids, as ForwardOptions::type_ids.
  absl::StatusOr<std::vector<Matrix>> ForwardBatch(const std::vector<std::vector<uint32_t>>& batch, int threads,
                                                   ForwardBatchWorkspace* workspace = nullptr,
                                                   const std::vector<std::vector<uint8_t>>* type_ids = nullptr) const;
  // ForwardBatch workspaces kept between calls: EmbedIdSequences takes one per worker and gives it back. A fresh
  // one is ~70 MB of new pages for a 2,048-row batch of a 768-wide model (whose first touch cost 2-4% of a 32-text
  // call here); up to kKeptWorkspaces stay with the model until it is destroyed. Thread-safe.
  std::unique_ptr<ForwardBatchWorkspace> TakeWorkspace() const;
  void GiveBackWorkspace(std::unique_ptr<ForwardBatchWorkspace> workspace) const;
  static constexpr size_t kKeptWorkspaces = 4;

  // True when ForwardBatch takes sequences of different lengths together (the encoder and GPT-2 stacks; the
  // decoder stacks, llama / qwen, batch equal lengths only).
  bool RaggedBatches() const { return !config_.decoder(); }

 private:
  Model() = default;
  absl::Status Bind(const std::string& weights_path);
  // Each layer's kind of attention (config.attention) with its seed, Performer features or Linformer tensors.
  absl::Status BindAttentionKinds();
  // Step 1 of Forward: token (+ position, + type) embeddings, [T, D]; T <= max_len checked by the caller.
  // `type_ids`: [T] or empty (ForwardOptions::type_ids).
  absl::StatusOr<Matrix> Embed(std::span<const uint32_t> ids, std::span<const uint8_t> type_ids = {}) const;

  ModelConfig config_;
  std::unique_ptr<SafetensorsShards> weights_;  // owns the memory every view below points into
  MatrixView token_table_;                    // [V, D]
  MatrixView position_table_;                 // [N, D] (gpt2: wpe; roberta: position_embeddings)
  Matrix sinusoid_;                           // [max_len, D] (encoder; distilbert without a position tensor)
  std::span<const float> token_type_row_;     // [D] (roberta, bert: token_type_embeddings row 0; distilbert none)
  MatrixView token_types_;                    // [types, D] (roberta, bert: token_type_embeddings)
  std::optional<LayerNormWeights> embedding_norm_;  // roberta: embeddings.LayerNorm
  TransformerStack stack_;
  // mpnet: RoBERTa's embeddings without token types, attention.attn.* layers and the relative position bias.
  absl::Status BindMpnet();
  // llama / qwen2 / qwen3: the RMSNorm / RoPE / GQA / SwiGLU stack instead of stack_.
  absl::Status BindDecoder();
  // modernbert: its tensors into stack_ (GeGLU, per-layer RoPE and windows, layer 0 without attn_norm).
  absl::Status BindModernBert();
  std::vector<float> zero_bias_;  // [D] the bias of a LayerNorm without one (modernbert norm_bias false)
  DecoderStack decoder_;
  // Every big linear layer of stack_ / decoder_ (model_dtype.cc), and their packings for UseLinearDtype.
  std::vector<LinearWeights*> LinearLayers();
  std::vector<const LinearWeights*> LinearLayers() const;
  LinearDtype linear_dtype_ = LinearDtype::kF32;
  std::vector<std::unique_ptr<LowPrecisionWeights>> low_weights_;
  mutable std::mutex workspaces_mutex_;
  mutable std::vector<std::unique_ptr<ForwardBatchWorkspace>> workspaces_;  // guarded by workspaces_mutex_
  bool pack_f32_ = true;     // Bind packs the f32 projections (false when loaded for bf16 / int8)
  PackedWeightStore packed_;  // the layers' weights packed for the AVX-512 GEMM (pack_linears.h), or empty
};

}  // namespace tokvec

#endif  // TOKVEC_MODELS_MODEL_H_
