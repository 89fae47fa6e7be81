// The unsupervised SimCSE objective (Gao et al. 2021, https://arxiv.org/abs/2104.08821, §3): every line is encoded
// twice, each time with its own dropout masks; the two pooled vectors of a line are a positive pair and the other
// lines of the batch are its negatives (InfoNCE, van den Oord et al. 2018):
//
//   z_i = pool(h(x_i)), z'_i = pool(h'(x_i))                              i = 0 .. P-1 (P lines, 2P rows)
//   s_ij = cos(z_i, z'_j) / τ
//   loss = (1/P) Σ_i -log( exp(s_ii) / Σ_j exp(s_ij) )
//
// as the paper's reference code computes it (one direction, z against z'). Rows i and P + i of the batch are the
// two encodings of line i. Everything here is a function of the hidden states, so it runs as the model's hidden
// head (Gpt2Model::ForwardBackwardHidden):
//
//   auto head = [&](const float* hidden, float* dhidden) {
//     return SimcseLoss(hidden, dhidden, {.pairs = P, .T = T, .C = C, .key_lengths = lengths,
//                                         .pooling = Pooling::kMean, .temperature = 0.05f, .loss_scale = 1.0f});
//   };
#ifndef TOKVEC_TRAINING_CONTRASTIVE_H_
#define TOKVEC_TRAINING_CONTRASTIVE_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "pipeline/pooling.h"
#include "training/gpt2_model.h"

namespace tokvec::training {

// How a row's hidden states [T, C] become one vector (pipeline/pooling.h's kinds; SimCSE takes these three): the
// mean over its real tokens (the first key_length), the first token's (kCls) or the last real token's (kLast: the
// one position a causal model lets see the whole line). kNone and kMax are refused by SimcseLoss.
bool SimcsePoolingSupported(Pooling pooling);

// pooled [R, C] from hidden [R·T, C]; lengths [R] (each in [1, T]).
void PoolForward(float* pooled, const float* hidden, int64_t R, int64_t T, int64_t C,
                 std::span<const int32_t> lengths, Pooling pooling);
// dhidden [R·T, C] += the gradient through PoolForward of dpooled [R, C].
void PoolBackward(float* dhidden, const float* dpooled, int64_t R, int64_t T, int64_t C,
                  std::span<const int32_t> lengths, Pooling pooling);

// The InfoNCE loss of z = pooled[0, P) against z' = pooled[P, 2P) ([2P, C]), mean over the P lines. When dpooled is
// not null, writes d(loss_scale · loss)/d(pooled) into it ([2P, C]). Vectors are normalised as
// torch.nn.functional.normalize (x / max(‖x‖, 1e-12)). Returns the loss (not scaled).
double InfoNceForwardBackward(const float* pooled, int64_t P, int64_t C, float temperature, float loss_scale,
                              float* dpooled);

struct SimcseShape {
  int64_t pairs = 0;                    // P lines; the batch has 2P rows
  int64_t T = 0;
  int64_t C = 0;
  std::span<const int32_t> key_lengths;  // [2P]
  Pooling pooling = Pooling::kMean;
  float temperature = 0.05f;
  float loss_scale = 1.0f;
};

// Pool, InfoNCE and (dhidden not null) back through the pooling: the model's HiddenHead. The returned LossSum has
// sum = P · loss and count = P, so mean() is the loss.
absl::StatusOr<LossSum> SimcseLoss(const float* hidden, float* dhidden, const SimcseShape& shape);
// SimcseLoss as the model's hidden head (Gpt2Model::ForwardBackwardHidden / EvaluateHidden); `shape` must outlive it.
Gpt2Model::HiddenHead SimcseHead(const SimcseShape& shape);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_CONTRASTIVE_H_
