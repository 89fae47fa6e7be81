// RoBERTa (Liu et al. 2019; Hugging Face's RobertaForMaskedLM) inside Gpt2Model's flat buffers.
//
// Gpt2Model computes every linear layer with Conv1D weights ([in, out]) and one fused q | k | v projection, so a
// RoBERTa checkpoint is converted on load and back on save:
//
//   checkpoint (nn.Linear, [out, in])                          buffer (training)
//   attention.self.{query,key,value}.{weight,bias}           → attention.self.qkv.{weightT [C, 3C], bias [3C]}
//   attention.output.dense.weight, intermediate.dense.weight,
//   output.dense.weight, lm_head.dense.weight               → the same name + "T", transposed
//   everything else (embeddings, LayerNorms, biases, lm_head.bias) as it is
//
// Buffer order: embeddings.{word,position,token_type}_embeddings, embeddings.LayerNorm.{weight,bias}, then per
// layer Gpt2Model's 12 slots (ln_1 = attention.output.LayerNorm, c_attn = qkv, c_proj = attention.output.dense,
// ln_2 = output.LayerNorm, c_fc = intermediate.dense, mlp.c_proj = output.dense), then the MLM head
// lm_head.dense.{weightT, bias}, lm_head.layer_norm.{weight, bias}, lm_head.bias (the decoder is the word table,
// tied). Saved files use the names of RobertaForMaskedLM ("roberta." + body, "lm_head.*"), which transformers and
// `tokvec embed` load.
#ifndef TOKVEC_TRAINING_ROBERTA_LAYOUT_H_
#define TOKVEC_TRAINING_ROBERTA_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "embeddings/safetensors.h"
#include "models/model_config.h"

namespace tokvec::training {

struct ParameterInfo;

// A tensor in a checkpoint's layout, owning its values.
struct HfTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// The buffer layout above.
std::vector<ParameterInfo> RobertaParameters(const ModelConfig& config);

// Fills `params` (RobertaParameters' layout) from a checkpoint whose names may carry the "roberta." prefix.
// lm_head.* may be absent (a RobertaModel or sentence-transformers directory): the head is then initialised as
// transformers does (dense weight normal(0, 0.02) from tokvec's seeded generator with `head_seed`, biases 0,
// LayerNorm 1 and 0) and the result is true.
absl::StatusOr<bool> LoadRobertaWeights(const std::vector<ParameterInfo>& infos, const ModelConfig& config,
                                        SafetensorsFile& weights, uint64_t head_seed, std::vector<float>& params);

// `buffer` (params, grads or optimizer moments) in the checkpoint's layout and names (RobertaForMaskedLM's).
std::vector<HfTensor> RobertaCheckpointTensors(const std::vector<ParameterInfo>& infos, const ModelConfig& config,
                                               const std::vector<float>& buffer);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_ROBERTA_LAYOUT_H_
