// Private to the Gpt2Model sources (gpt2_model.cc, gpt2_forward.cc, gpt2_backward.cc), which share them: where
// each tensor sits in infos_ and the flat buffers, and the dropout sites. Not for other files: use
// Gpt2Model::Find and the tensor names instead.
#ifndef TOKVEC_TRAINING_GPT2_MODEL_INTERNAL_H_
#define TOKVEC_TRAINING_GPT2_MODEL_INTERNAL_H_

#include <cstddef>
#include <cstdint>

namespace tokvec::training {

// Positions in infos_: wte, wpe, then kPerLayer tensors per layer, then ln_f.
constexpr int kWte = 0, kWpe = 1, kPerLayer = 12;  // gpt2 layers start at 2, encoder layers at 1
// RoBERTa (training/roberta_layout.h): word, position, token-type tables and the embedding LayerNorm, then the
// layers; after them the MLM head's dense weight, bias, LayerNorm weight, bias and the decoder bias.
constexpr int kTokenType = 2, kEmbLnW = 3, kEmbLnB = 4, kRobertaFirstLayer = 5;
enum HeadTensor { kHeadDenseW, kHeadDenseB, kHeadLnW, kHeadLnB, kHeadBias };
enum LayerTensor {
  kLn1W, kLn1B, kAttnW, kAttnB, kAttnProjW, kAttnProjB, kLn2W, kLn2B, kFcW, kFcB, kFcProjW, kFcProjB
};

// Dropout sites, mixed with the layer into each mask's seed.
enum DropoutSite : uint64_t { kAttentionSite, kAttnResidualSite, kMlpResidualSite, kEmbeddingSite };

inline size_t Sz(int64_t n) { return static_cast<size_t>(n); }

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_GPT2_MODEL_INTERNAL_H_
