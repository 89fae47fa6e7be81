// Seeded random weights for a GPT-2 or encoder ModelConfig, written as model.safetensors (F32) in GPT-2's key
// names: the weights `tokvec init` gives a new model directory.
//
//   TOKVEC_RETURN_IF_ERROR(WriteRandomWeights(config, /*seed=*/1, /*token_rows=*/{}, "models/tiny/model.safetensors"));
//
// Initialisation, GPT-2's scheme (Radford et al. 2019; transformers' GPT2PreTrainedModel._init_weights): every
// weight matrix normal(0, 0.02), the residual projections (attn.c_proj, mlp.c_proj) normal(0, 0.02 / sqrt(2 L)),
// biases 0, LayerNorm gamma 1 and beta 0. Tensors are drawn in a fixed order (wte, wpe, then per layer c_attn,
// attn.c_proj, c_fc, mlp.c_proj) from one NormalSampler(seed), so a seed always gives the same model.
// A linformer layer also gets E and F [K, max_len], normal(0, 1/sqrt(max_len)). Sizes past 16 GB of float32
// are refused before anything is allocated (ResourceExhausted), as is running out of memory.
#ifndef TOKVEC_MODELS_RANDOM_WEIGHTS_H_
#define TOKVEC_MODELS_RANDOM_WEIGHTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "models/model_config.h"

namespace tokvec {

// wte rows to replace: (token id, vector of d_model floats).
using TokenRows = std::vector<std::pair<int64_t, const float*>>;

// GPT-2-initialised weights to `path` (see the file comment); each of `token_rows` replaces its wte row after
// the row is drawn, so the other tensors do not depend on them.
absl::Status WriteRandomWeights(const ModelConfig& config, uint64_t seed, const TokenRows& token_rows,
                                const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_RANDOM_WEIGHTS_H_
