// One optimizer step of the training loop (nanoGPT's train.py inner loop), shared by `tokvec fit` and the
// PyTorch parity test:
//
//   1. zero the gradients;
//   2. for each of the K micro-batches: forward + backward of (mean loss) / K, gradients accumulating;
//   3. clip the global gradient norm (torch.nn.utils.clip_grad_norm_);
//   4. set the learning rate from the schedule and update the weights.
//
//   TOKVEC_ASSIGN_OR_RETURN(StepResult r, TrainStep(*model, optimizer, schedule, /*clip=*/1.0, step, batches, 2));
//   // r.loss: mean loss of the step's batches before the update, r.grad_norm before clipping, r.lr used
#ifndef TOKVEC_TRAINING_TRAIN_STEP_H_
#define TOKVEC_TRAINING_TRAIN_STEP_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "training/contrastive.h"
#include "training/gpt2_model.h"
#include "training/optimizer.h"

namespace tokvec::training {

// B rows of T tokens: inputs and targets, [B, T] each (targets may be kIgnoreIndex).
struct MicroBatch {
  std::vector<int32_t> inputs;
  std::vector<int32_t> targets;
  int64_t B = 0;
  int64_t T = 0;
  std::vector<int32_t> key_lengths;  // [B] real tokens of each row (--lines: the rest is padding), or empty
  int64_t pairs = 0;  // simcse: B = 2·pairs rows, rows r and pairs + r are one line; no targets (SimcseLoss)
};

// The simcse objective's head (training/contrastive.h).
struct SimcseSettings {
  Pooling pooling = Pooling::kMean;
  float temperature = 0.05f;
};

struct StepResult {
  double loss = 0.0;       // Σ_k mean loss of micro-batch k / K (what PyTorch's accumulated loss.item() sums to)
  double grad_norm = 0.0;  // global L2 norm before clipping
  double lr = 0.0;         // learning rate of this step
  int64_t tokens = 0;      // input tokens processed
};

// With the model's dropout on, micro-batch k of step `step` draws its masks from DropoutSeed(seed, step, k), so a
// resumed run draws the same ones.
// Batches with pairs > 0 train the SimCSE loss with `simcse`'s pooling and temperature.
absl::StatusOr<StepResult> TrainStep(Gpt2Model& model, Optimizer& optimizer, const Schedule& schedule, double clip,
                                     int64_t step, std::span<const MicroBatch> batches, int threads,
                                     uint64_t seed = 0, const SimcseSettings& simcse = {});

// The simcse head's shape for a batch of pairs (batch.pairs > 0); it refers to batch.key_lengths.
SimcseShape SimcseShapeOf(const MicroBatch& batch, int64_t C, const SimcseSettings& simcse, float loss_scale);

// The loss of one micro-batch and d(loss_scale · loss)/dθ added to the model's gradients: the LM head's
// cross-entropy, or (pairs > 0) SimCSE's InfoNCE.
absl::StatusOr<LossSum> MicroBatchForwardBackward(Gpt2Model& model, const MicroBatch& batch, float loss_scale,
                                                  int threads, uint64_t dropout_seed, const SimcseSettings& simcse);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_TRAIN_STEP_H_
