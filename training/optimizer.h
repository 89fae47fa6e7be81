// Optimizers, gradient clipping and the learning-rate schedule, with PyTorch's semantics so a run can be checked
// step by step against torch.optim (scripts/gen_training_goldens.py).
//
//   Optimizer opt({.kind = OptimizerKind::kAdamW, .weight_decay = 0.1}, model.parameters(), model.params().size());
//   double norm = ClipGradNorm(model.grads(), 1.0);            // torch.nn.utils.clip_grad_norm_
//   double lr = ScheduledLr(schedule, step);                    // warmup, then constant | linear | cosine
//   opt.Step(model.params(), model.grads(), lr);
//
// AdamW (Loshchilov & Hutter 2019, https://arxiv.org/abs/1711.05101) as torch.optim.AdamW (1.13, single-tensor
// path): θ ← θ·(1 - lr·λ); m ← β1·m + (1-β1)·g; v ← β2·v + (1-β2)·g²;
// θ ← θ - lr/(1-β1ᵗ) · m / (√v / √(1-β2ᵗ) + ε). λ applies only to tensors with 2+ dimensions (nanoGPT).
// SGD with momentum as torch.optim.SGD (dampening 0, not Nesterov): g ← g + λ·θ; b ← μ·b + g (b = g at the first
// step); θ ← θ - lr·b.
#ifndef TOKVEC_TRAINING_OPTIMIZER_H_
#define TOKVEC_TRAINING_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "embeddings/safetensors.h"
#include "training/gpt2_model.h"

namespace tokvec::training {

enum class OptimizerKind { kAdamW, kSgd };

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::kAdamW;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.1;  // on 2+-dimensional tensors only
  double momentum = 0.9;      // SGD
};

class Optimizer {
 public:
  Optimizer(const OptimizerOptions& options, std::vector<ParameterInfo> parameters, size_t total);

  // One update of params with grads at learning rate lr.
  void Step(std::vector<float>& params, const std::vector<float>& grads, double lr);

  int64_t steps() const { return steps_; }
  // The state as named tensors ("adamw.m.<name>", "adamw.v.<name>" or "sgd.momentum.<name>") and back.
  std::vector<NamedTensor> StateTensors() const;
  absl::Status LoadState(SafetensorsFile& file, int64_t steps);

 private:
  OptimizerOptions options_;
  std::vector<ParameterInfo> parameters_;
  std::vector<float> m_;  // [total] AdamW first moment / SGD momentum buffer
  std::vector<float> v_;  // [total] AdamW second moment
  int64_t steps_ = 0;
};

// Scales grads so their global L2 norm is at most max_norm, as torch.nn.utils.clip_grad_norm_ (coefficient
// max_norm / (norm + 1e-6), capped at 1). Returns the norm before clipping. max_norm <= 0 only measures.
double ClipGradNorm(std::vector<float>& grads, double max_norm);

enum class ScheduleKind { kConstant, kLinear, kCosine };
absl::StatusOr<ScheduleKind> ParseSchedule(std::string_view name);  // "constant" | "linear" | "cosine"

struct Schedule {
  ScheduleKind kind = ScheduleKind::kCosine;
  double lr = 3e-4;          // peak learning rate
  int64_t warmup = 0;        // steps of linear warmup
  int64_t total_steps = 1;   // optimizer steps in the run
};
// The learning rate of optimizer step s (from 0): s < warmup: lr·(s+1)/warmup; after it, with
// p = (s - warmup) / max(1, total - warmup): constant lr, linear lr·(1 - p), cosine lr·(1 + cos(π·p))/2.
double ScheduledLr(const Schedule& schedule, int64_t step);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_OPTIMIZER_H_
