#include "training/train_step.h"

#include "base/status_macros.h"
#include "training/kernels.h"

namespace tokvec::training {

absl::StatusOr<LossSum> MicroBatchForwardBackward(Gpt2Model& model, const MicroBatch& batch, float loss_scale,
                                                  int threads, uint64_t dropout_seed, const SimcseSettings& simcse) {
  if (batch.pairs == 0) {
    return model.ForwardBackward(batch.inputs, batch.targets, batch.B, batch.T, loss_scale, threads, dropout_seed,
                                 batch.key_lengths);
  }
  const SimcseShape shape = SimcseShapeOf(batch, model.config().d_model, simcse, loss_scale);
  return model.ForwardBackwardHidden(batch.inputs, batch.B, batch.T, threads, dropout_seed, batch.key_lengths,
                                     SimcseHead(shape));
}

SimcseShape SimcseShapeOf(const MicroBatch& batch, int64_t C, const SimcseSettings& simcse, float loss_scale) {
  return {.pairs = batch.pairs, .T = batch.T, .C = C, .key_lengths = batch.key_lengths, .pooling = simcse.pooling,
          .temperature = simcse.temperature, .loss_scale = loss_scale};
}

absl::StatusOr<StepResult> TrainStep(Gpt2Model& model, Optimizer& optimizer, const Schedule& schedule, double clip,
                                     int64_t step, std::span<const MicroBatch> batches, int threads, uint64_t seed,
                                     const SimcseSettings& simcse) {
  StepResult result;
  model.ZeroGrad();
  const float scale = 1.0f / static_cast<float>(batches.size());
  for (size_t k = 0; k < batches.size(); ++k) {
    const MicroBatch& batch = batches[k];
    TOKVEC_ASSIGN_OR_RETURN(LossSum loss, MicroBatchForwardBackward(model, batch, scale, threads,
                                                                    DropoutSeed(seed, step, k), simcse));
    result.loss += loss.mean() / static_cast<double>(batches.size());
    if (batch.key_lengths.empty()) {
      result.tokens += batch.B * batch.T;
    } else {
      for (int32_t n : batch.key_lengths) result.tokens += n;  // real tokens, not padding
    }
  }
  result.grad_norm = ClipGradNorm(model.grads(), clip);
  result.lr = ScheduledLr(schedule, step);
  optimizer.Step(model.params(), model.grads(), result.lr);
  return result;
}

}  // namespace tokvec::training
