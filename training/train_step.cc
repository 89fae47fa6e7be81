#include "training/train_step.h"

#include "base/status_macros.h"
#include "training/kernels.h"

namespace tokvec::training {

absl::StatusOr<StepResult> TrainStep(Gpt2Model& model, Optimizer& optimizer, const Schedule& schedule, double clip,
                                     int64_t step, std::span<const MicroBatch> batches, int threads, uint64_t seed) {
  StepResult result;
  model.ZeroGrad();
  const float scale = 1.0f / static_cast<float>(batches.size());
  for (size_t k = 0; k < batches.size(); ++k) {
    const MicroBatch& batch = batches[k];
    TOKVEC_ASSIGN_OR_RETURN(LossSum loss, model.ForwardBackward(batch.inputs, batch.targets, batch.B, batch.T, scale,
                                                                threads, DropoutSeed(seed, step, k)));
    result.loss += loss.mean() / static_cast<double>(batches.size());
    result.tokens += batch.B * batch.T;
  }
  result.grad_norm = ClipGradNorm(model.grads(), clip);
  result.lr = ScheduledLr(schedule, step);
  optimizer.Step(model.params(), model.grads(), result.lr);
  return result;
}

}  // namespace tokvec::training
