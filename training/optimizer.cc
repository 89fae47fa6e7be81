#include "training/optimizer.h"

#include <cmath>
#include <cstring>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec::training {

Optimizer::Optimizer(const OptimizerOptions& options, std::vector<ParameterInfo> parameters, size_t total)
    : options_(options), parameters_(std::move(parameters)), m_(total, 0.0f),
      v_(options.kind == OptimizerKind::kAdamW ? total : 0, 0.0f) {}

void Optimizer::Step(std::vector<float>& params, const std::vector<float>& grads, double lr) {
  ++steps_;
  const OptimizerOptions& o = options_;
  if (o.kind == OptimizerKind::kSgd) {
    for (const ParameterInfo& info : parameters_) {
      const float decay = info.decay() ? static_cast<float>(o.weight_decay) : 0.0f;
      for (int64_t i = info.offset; i < info.offset + info.size; ++i) {
        const float g = grads[i] + decay * params[i];
        m_[i] = steps_ == 1 ? g : static_cast<float>(o.momentum) * m_[i] + g;
        params[i] -= static_cast<float>(lr) * m_[i];
      }
    }
    return;
  }
  // Scalars in double as Python computes them, applied as float32 as torch's CPU kernels do.
  const double t = static_cast<double>(steps_);
  const double bias_correction1 = 1.0 - std::pow(o.beta1, t);
  const float step_size = static_cast<float>(lr / bias_correction1);
  const float bias_correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(o.beta2, t)));
  const float beta1 = static_cast<float>(o.beta1), beta2 = static_cast<float>(o.beta2);
  const float one_minus_beta1 = static_cast<float>(1.0 - o.beta1), one_minus_beta2 = static_cast<float>(1.0 - o.beta2);
  const float eps = static_cast<float>(o.eps);
  for (const ParameterInfo& info : parameters_) {
    const float shrink = static_cast<float>(1.0 - lr * (info.decay() ? o.weight_decay : 0.0));
    for (int64_t i = info.offset; i < info.offset + info.size; ++i) {
      const float g = grads[i];
      params[i] *= shrink;
      m_[i] = m_[i] * beta1 + g * one_minus_beta1;
      v_[i] = v_[i] * beta2 + one_minus_beta2 * g * g;
      const float denom = std::sqrt(v_[i]) / bias_correction2_sqrt + eps;
      params[i] += -step_size * (m_[i] / denom);
    }
  }
}

std::vector<NamedTensor> Optimizer::StateTensors() const {
  std::vector<NamedTensor> tensors;
  for (const ParameterInfo& info : parameters_) {
    if (options_.kind == OptimizerKind::kSgd) {
      tensors.push_back({"sgd.momentum." + info.name, info.shape, m_.data() + info.offset});
    } else {
      tensors.push_back({"adamw.m." + info.name, info.shape, m_.data() + info.offset});
      tensors.push_back({"adamw.v." + info.name, info.shape, v_.data() + info.offset});
    }
  }
  return tensors;
}

absl::Status Optimizer::LoadState(SafetensorsFile& file, int64_t steps) {
  auto read = [&](const std::string& name, const ParameterInfo& info, std::vector<float>& into) -> absl::Status {
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor tensor, file.ReadFloat32(name));
    if (tensor.num_elements() != info.size) {
      return absl::InvalidArgumentError(fmt::format("{}: optimizer tensor '{}' has {} values, expected {}",
                                                    file.path(), name, tensor.num_elements(), info.size));
    }
    std::memcpy(into.data() + info.offset, tensor.data, static_cast<size_t>(info.size) * sizeof(float));
    return absl::OkStatus();
  };
  for (const ParameterInfo& info : parameters_) {
    if (options_.kind == OptimizerKind::kSgd) {
      TOKVEC_RETURN_IF_ERROR(read("sgd.momentum." + info.name, info, m_));
    } else {
      TOKVEC_RETURN_IF_ERROR(read("adamw.m." + info.name, info, m_));
      TOKVEC_RETURN_IF_ERROR(read("adamw.v." + info.name, info, v_));
    }
  }
  steps_ = steps;
  return absl::OkStatus();
}

double ClipGradNorm(std::vector<float>& grads, double max_norm) {
  double sum = 0.0;
  for (float g : grads) sum += static_cast<double>(g) * g;
  const double norm = std::sqrt(sum);
  if (max_norm > 0) {
    const double coef = max_norm / (norm + 1e-6);
    if (coef < 1.0) {
      const float c = static_cast<float>(coef);
      for (float& g : grads) g *= c;
    }
  }
  return norm;
}

absl::StatusOr<ScheduleKind> ParseSchedule(std::string_view name) {
  if (name == "constant") return ScheduleKind::kConstant;
  if (name == "linear") return ScheduleKind::kLinear;
  if (name == "cosine") return ScheduleKind::kCosine;
  return absl::InvalidArgumentError(
      fmt::format("unknown schedule '{}'; use constant, linear or cosine", name));
}

double ScheduledLr(const Schedule& schedule, int64_t step) {
  if (step < schedule.warmup) {
    return schedule.lr * static_cast<double>(step + 1) / static_cast<double>(schedule.warmup);
  }
  const double span = static_cast<double>(std::max<int64_t>(1, schedule.total_steps - schedule.warmup));
  const double p = std::min(1.0, static_cast<double>(step - schedule.warmup) / span);
  switch (schedule.kind) {
    case ScheduleKind::kConstant:
      return schedule.lr;
    case ScheduleKind::kLinear:
      return schedule.lr * (1.0 - p);
    case ScheduleKind::kCosine:
      return schedule.lr * 0.5 * (1.0 + std::cos(M_PI * p));
  }
  return schedule.lr;
}

}  // namespace tokvec::training
