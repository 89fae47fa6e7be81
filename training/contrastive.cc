#include "training/contrastive.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fmt/format.h"

namespace tokvec::training {
namespace {

constexpr double kNormEps = 1e-12;  // torch.nn.functional.normalize's eps

size_t Sz(int64_t n) { return static_cast<size_t>(n); }

// The positions pooled for row r and the weight of each: [first, last) with weight w.
struct PoolSpan {
  int64_t first, last;
  float weight;
};

PoolSpan SpanOf(int64_t length, Pooling pooling) {
  switch (pooling) {
    case Pooling::kMean:
      return {0, length, 1.0f / static_cast<float>(length)};
    case Pooling::kCls:
      return {0, 1, 1.0f};
    case Pooling::kLast:
      return {length - 1, length, 1.0f};
    default:  // refused by SimcseLoss
      return {0, 1, 1.0f};
  }
}

}  // namespace

bool SimcsePoolingSupported(Pooling pooling) {
  return pooling == Pooling::kMean || pooling == Pooling::kCls || pooling == Pooling::kLast;
}

void PoolForward(float* pooled, const float* hidden, int64_t R, int64_t T, int64_t C,
                 std::span<const int32_t> lengths, Pooling pooling) {
  std::vector<double> sum(Sz(C));
  for (int64_t r = 0; r < R; ++r) {
    const PoolSpan span = SpanOf(lengths[Sz(r)], pooling);
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int64_t t = span.first; t < span.last; ++t) {
      const float* h = hidden + (r * T + t) * C;  // [C]
      for (int64_t c = 0; c < C; ++c) sum[Sz(c)] += h[c];
    }
    const double scale = pooling == Pooling::kMean ? 1.0 / static_cast<double>(span.last - span.first) : 1.0;
    for (int64_t c = 0; c < C; ++c) pooled[r * C + c] = static_cast<float>(sum[Sz(c)] * scale);
  }
}

void PoolBackward(float* dhidden, const float* dpooled, int64_t R, int64_t T, int64_t C,
                  std::span<const int32_t> lengths, Pooling pooling) {
  for (int64_t r = 0; r < R; ++r) {
    const PoolSpan span = SpanOf(lengths[Sz(r)], pooling);
    const float* d = dpooled + r * C;  // [C]
    for (int64_t t = span.first; t < span.last; ++t) {
      float* dh = dhidden + (r * T + t) * C;  // [C]
      for (int64_t c = 0; c < C; ++c) dh[c] += d[c] * span.weight;
    }
  }
}

double InfoNceForwardBackward(const float* pooled, int64_t P, int64_t C, float temperature, float loss_scale,
                              float* dpooled) {
  const int64_t R = 2 * P;
  // u = z / max(‖z‖, eps), in double.
  std::vector<double> u(Sz(R * C)), norm(Sz(R));
  for (int64_t r = 0; r < R; ++r) {
    double sq = 0.0;
    for (int64_t c = 0; c < C; ++c) sq += static_cast<double>(pooled[r * C + c]) * pooled[r * C + c];
    norm[Sz(r)] = std::max(std::sqrt(sq), kNormEps);
    for (int64_t c = 0; c < C; ++c) u[Sz(r * C + c)] = pooled[r * C + c] / norm[Sz(r)];
  }
  // s_ij = u_i · u'_j / τ; loss_i = logsumexp_j s_ij - s_ii; softmax kept for the backward pass.
  const double tau = temperature;
  std::vector<double> prob(Sz(P * P));
  double loss = 0.0;
  for (int64_t i = 0; i < P; ++i) {
    double* row = prob.data() + i * P;  // [P]
    for (int64_t j = 0; j < P; ++j) {
      double dot = 0.0;
      for (int64_t c = 0; c < C; ++c) dot += u[Sz(i * C + c)] * u[Sz((P + j) * C + c)];
      row[j] = dot / tau;
    }
    const double max = *std::max_element(row, row + P);
    double sum = 0.0;
    for (int64_t j = 0; j < P; ++j) sum += std::exp(row[j] - max);
    loss += max + std::log(sum) - row[i];
    for (int64_t j = 0; j < P; ++j) row[j] = std::exp(row[j] - max) / sum;
  }
  loss /= static_cast<double>(P);
  if (dpooled == nullptr) return loss;

  // ds_ij = scale · (softmax_ij - δ_ij) / P; du_i = Σ_j ds_ij u'_j / τ; du'_j = Σ_i ds_ij u_i / τ;
  // dz = (du - u (u · du)) / ‖z‖ (the normalisation's Jacobian).
  const double g = static_cast<double>(loss_scale) / static_cast<double>(P);
  std::vector<double> du(Sz(R * C), 0.0);
  for (int64_t i = 0; i < P; ++i) {
    for (int64_t j = 0; j < P; ++j) {
      const double ds = g * (prob[Sz(i * P + j)] - (i == j ? 1.0 : 0.0)) / tau;
      for (int64_t c = 0; c < C; ++c) {
        du[Sz(i * C + c)] += ds * u[Sz((P + j) * C + c)];
        du[Sz((P + j) * C + c)] += ds * u[Sz(i * C + c)];
      }
    }
  }
  for (int64_t r = 0; r < R; ++r) {
    const bool clamped = norm[Sz(r)] <= kNormEps;
    double proj = 0.0;
    for (int64_t c = 0; c < C; ++c) proj += u[Sz(r * C + c)] * du[Sz(r * C + c)];
    for (int64_t c = 0; c < C; ++c) {
      const double d = clamped ? du[Sz(r * C + c)] : du[Sz(r * C + c)] - u[Sz(r * C + c)] * proj;
      dpooled[r * C + c] = static_cast<float>(d / norm[Sz(r)]);
    }
  }
  return loss;
}

absl::StatusOr<LossSum> SimcseLoss(const float* hidden, float* dhidden, const SimcseShape& shape) {
  const int64_t P = shape.pairs, R = 2 * P, T = shape.T, C = shape.C;
  if (P < 2) {
    return absl::InvalidArgumentError(
        fmt::format("simcse needs at least 2 lines per batch (in-batch negatives); got {}", P));
  }
  if (static_cast<int64_t>(shape.key_lengths.size()) != R) {
    return absl::InvalidArgumentError(fmt::format("simcse: {} key lengths for {} rows", shape.key_lengths.size(), R));
  }
  if (!SimcsePoolingSupported(shape.pooling)) {
    return absl::InvalidArgumentError(fmt::format("simcse pools with mean, cls or last, not {}",
                                                  PoolingName(shape.pooling)));
  }
  if (!(shape.temperature > 0.0f) || !std::isfinite(shape.temperature)) {
    return absl::InvalidArgumentError(fmt::format("simcse: temperature {} must be positive", shape.temperature));
  }
  std::vector<float> pooled(Sz(R * C));
  PoolForward(pooled.data(), hidden, R, T, C, shape.key_lengths, shape.pooling);
  std::vector<float> dpooled(dhidden != nullptr ? Sz(R * C) : 0);
  const double loss = InfoNceForwardBackward(pooled.data(), P, C, shape.temperature, shape.loss_scale,
                                             dhidden != nullptr ? dpooled.data() : nullptr);
  if (dhidden != nullptr) PoolBackward(dhidden, dpooled.data(), R, T, C, shape.key_lengths, shape.pooling);
  return LossSum{.sum = loss * static_cast<double>(P), .count = P};
}

Gpt2Model::HiddenHead SimcseHead(const SimcseShape& shape) {
  return [&shape](const float* hidden, float* dhidden) { return SimcseLoss(hidden, dhidden, shape); };
}

}  // namespace tokvec::training
