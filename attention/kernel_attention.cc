#include "attention/kernel_attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "fmt/format.h"
#include "kernels/ops.h"

namespace tokvec {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

bool Padded(std::span<const uint8_t> padding, int64_t j) {
  return !padding.empty() && padding[static_cast<size_t>(j)] != 0;
}

}  // namespace

void KernelExponents(const KernelFeatureMap& map, StridedView x, int64_t row0, int64_t n, bool key, KernelScratch* s,
               float* e) {
  const int64_t dh = x.cols;
  if (map.type == AttentionKindType::kLinear) {
    for (int64_t r = 0; r < n; ++r) std::copy_n(x.data + (row0 + r) * x.stride, dh, e + r * dh);
    return;
  }
  const int64_t m = map.features->rows();
  const float root = std::sqrt(map.scale);
  s->scaled.resize(static_cast<size_t>(n * dh));
  float* xs = s->scaled.data();
  for (int64_t r = 0; r < n; ++r) {
    const float* src = x.data + (row0 + r) * x.stride;
    for (int64_t c = 0; c < dh; ++c) xs[r * dh + c] = root * src[c];
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(n), static_cast<blasint>(m),
              static_cast<blasint>(dh), 1.0f, xs, static_cast<blasint>(dh), map.features->data(),
              static_cast<blasint>(dh), 0.0f, e, static_cast<blasint>(m));
  if (!key) return;
  for (int64_t r = 0; r < n; ++r) {
    float norm = 0.0f;
    for (int64_t c = 0; c < dh; ++c) norm += xs[r * dh + c] * xs[r * dh + c];
    for (int64_t f = 0; f < m; ++f) e[r * m + f] -= 0.5f * norm;
  }
}

namespace {

float Elu1(float x) { return x > 0.0f ? x + 1.0f : std::exp(x); }

// Query features in place: linear elu + 1; performer exp(e - rowmax).
void QueryFeatures(const KernelFeatureMap& map, int64_t n, int64_t width, float* e) {
  for (int64_t r = 0; r < n; ++r) {
    float* row = e + r * width;
    if (map.type == AttentionKindType::kLinear) {
      for (int64_t f = 0; f < width; ++f) row[f] = Elu1(row[f]);
    } else {
      const float mx = *std::max_element(row, row + width);
      for (int64_t f = 0; f < width; ++f) row[f] = std::exp(row[f] - mx);
    }
  }
}

// Key features in place (padded rows 0). Performer: exp(e - m) with the running max *m updated first; when it
// grows, S [width, Dv] and z [width] are rescaled so every key already summed shares the new reference.
void KeyFeatures(const KernelFeatureMap& map, std::span<const uint8_t> padding, int64_t row0, int64_t n,
                 int64_t width, int64_t v_dim, float* e, float* running_max, float* state, float* normalizer) {
  if (map.type == AttentionKindType::kPerformer) {
    float chunk_max = kNegInf;
    for (int64_t r = 0; r < n; ++r) {
      if (Padded(padding, row0 + r)) continue;
      chunk_max = std::max(chunk_max, *std::max_element(e + r * width, e + (r + 1) * width));
    }
    if (chunk_max > *running_max) {
      if (*running_max != kNegInf) {
        const float factor = std::exp(*running_max - chunk_max);
        for (int64_t i = 0; i < width * v_dim; ++i) state[i] *= factor;
        for (int64_t i = 0; i < width; ++i) normalizer[i] *= factor;
      }
      *running_max = chunk_max;
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    float* row = e + r * width;
    if (Padded(padding, row0 + r)) {
      std::fill_n(row, width, 0.0f);
    } else if (map.type == AttentionKindType::kLinear) {
      for (int64_t f = 0; f < width; ++f) row[f] = Elu1(row[f]);
    } else {
      for (int64_t f = 0; f < width; ++f) row[f] = std::exp(row[f] - *running_max);
    }
  }
}

// S += Bᵀ·V_c, z += Σ rows of B.   B: [n, width], V_c: n rows of v from row0.
void Accumulate(const float* b, int64_t n, int64_t width, StridedView v, int64_t row0, float* state,
                float* normalizer) {
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(width), static_cast<blasint>(v.cols),
              static_cast<blasint>(n), 1.0f, b, static_cast<blasint>(width), v.data + row0 * v.stride,
              static_cast<blasint>(v.stride), 1.0f, state, static_cast<blasint>(v.cols));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t f = 0; f < width; ++f) normalizer[f] += b[r * width + f];
  }
}

}  // namespace

void KernelAttendHead(const KernelFeatureMap& map, StridedView q, StridedView k, StridedView v, bool causal,
                      std::span<const uint8_t> key_padding, KernelScratch* s, float* out, int64_t out_stride) {
  UseSingleThreadedBlas();
  const int64_t t = q.rows, dh = q.cols, dv = v.cols, width = map.width(dh);
  const int64_t c = kKernelChunk;
  s->phi_q.resize(static_cast<size_t>(c * width));
  s->phi_k.resize(static_cast<size_t>(c * width));
  s->products.resize(static_cast<size_t>(c * c));
  s->state.assign(static_cast<size_t>(width * dv), 0.0f);
  s->normalizer.assign(static_cast<size_t>(width), 0.0f);
  s->numerator.resize(static_cast<size_t>(c * dv));
  s->denominator.resize(static_cast<size_t>(c));
  float* a = s->phi_q.data();
  float* b = s->phi_k.data();
  float* state = s->state.data();
  float* z = s->normalizer.data();
  float* num = s->numerator.data();
  float* den = s->denominator.data();
  float running_max = kNegInf;

  if (!causal) {  // pass 1: every visible key into S, z
    for (int64_t r0 = 0; r0 < t; r0 += c) {
      const int64_t n = std::min(c, t - r0);
      KernelExponents(map, k, r0, n, /*key=*/true, s, b);
      KeyFeatures(map, key_padding, r0, n, width, dv, b, &running_max, state, z);
      Accumulate(b, n, width, v, r0, state, z);
    }
  }
  for (int64_t r0 = 0; r0 < t; r0 += c) {
    const int64_t n = std::min(c, t - r0);
    KernelExponents(map, q, r0, n, /*key=*/false, s, a);
    QueryFeatures(map, n, width, a);
    if (causal) {  // this chunk's keys first (they may raise the running max, rescaling S and z)
      KernelExponents(map, k, r0, n, /*key=*/true, s, b);
      KeyFeatures(map, key_padding, r0, n, width, dv, b, &running_max, state, z);
    }
    // num = A·S, den = A·z: the keys of earlier chunks (causal) or all keys
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(dv),
                static_cast<blasint>(width), 1.0f, a, static_cast<blasint>(width), state, static_cast<blasint>(dv),
                0.0f, num, static_cast<blasint>(dv));
    for (int64_t r = 0; r < n; ++r) {
      double d = 0.0;
      for (int64_t f = 0; f < width; ++f) d += static_cast<double>(a[r * width + f]) * z[f];
      den[r] = static_cast<float>(d);
    }
    if (causal) {
      // G = A·Bᵀ, lower triangle: query r sees keys r0..r0+r of its own chunk
      float* g = s->products.data();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(n), static_cast<blasint>(n),
                  static_cast<blasint>(width), 1.0f, a, static_cast<blasint>(width), b, static_cast<blasint>(width),
                  0.0f, g, static_cast<blasint>(n));
      for (int64_t r = 0; r < n; ++r) {
        std::fill(g + r * n + r + 1, g + (r + 1) * n, 0.0f);
        double sum = 0.0;
        for (int64_t j = 0; j <= r; ++j) sum += g[r * n + j];
        den[r] += static_cast<float>(sum);
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(dv),
                  static_cast<blasint>(n), 1.0f, g, static_cast<blasint>(n), v.data + r0 * v.stride,
                  static_cast<blasint>(v.stride), 1.0f, num, static_cast<blasint>(dv));
      Accumulate(b, n, width, v, r0, state, z);
    }
    for (int64_t r = 0; r < n; ++r) {
      float* o = out + (r0 + r) * out_stride;
      if (!(den[r] > 0.0f)) {
        std::fill_n(o, dv, 0.0f);
        continue;
      }
      const float inv = 1.0f / den[r];
      for (int64_t j = 0; j < dv; ++j) o[j] = num[r * dv + j] * inv;
    }
  }
}

void KernelHeadWeights(const KernelFeatureMap& map, StridedView q, StridedView k, bool causal,
                       std::span<const uint8_t> key_padding, float* weights) {
  const int64_t t = q.rows, dh = q.cols, width = map.width(dh);
  KernelScratch s;
  std::vector<float> a(static_cast<size_t>(t * width)), b(static_cast<size_t>(t * width));
  KernelExponents(map, q, 0, t, false, &s, a.data());
  QueryFeatures(map, t, width, a.data());
  KernelExponents(map, k, 0, t, true, &s, b.data());
  float running_max = kNegInf, unused = 0.0f;
  std::vector<float> state(static_cast<size_t>(width), 0.0f), z(static_cast<size_t>(width), 0.0f);
  KeyFeatures(map, key_padding, 0, t, width, 0, b.data(), &running_max, &unused, z.data());
  for (int64_t i = 0; i < t; ++i) {
    double sum = 0.0;
    float* row = weights + i * t;
    for (int64_t j = 0; j < t; ++j) {
      double dot = 0.0;
      if (!(causal && j > i)) {
        for (int64_t f = 0; f < width; ++f) dot += static_cast<double>(a[i * width + f]) * b[j * width + f];
      }
      row[j] = static_cast<float>(dot);
      sum += dot;
    }
    const float inv = sum > 0.0 ? static_cast<float>(1.0 / sum) : 0.0f;
    for (int64_t j = 0; j < t; ++j) row[j] *= inv;
  }
}

absl::StatusOr<Matrix> PerformerFeatures(int64_t features, int64_t head_dim, uint64_t seed) {
  if (features < 1 || head_dim < 1 || features > (int64_t{1} << 20) || head_dim > 4096) {
    return absl::InvalidArgumentError(
        fmt::format("performer features need 1 <= M <= 2^20 and 1 <= head_dim <= 4096, got M {} and head_dim {}",
                    features, head_dim));
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Matrix w(features, head_dim);
  std::vector<double> block(static_cast<size_t>(head_dim * head_dim));
  for (int64_t row0 = 0; row0 < features; row0 += head_dim) {
    for (double& x : block) x = normal(rng);
    // Modified Gram–Schmidt: rows of the block orthonormal.
    for (int64_t i = 0; i < head_dim; ++i) {
      double* ri = &block[static_cast<size_t>(i * head_dim)];
      for (int64_t j = 0; j < i; ++j) {
        const double* rj = &block[static_cast<size_t>(j * head_dim)];
        double dot = 0.0;
        for (int64_t c = 0; c < head_dim; ++c) dot += ri[c] * rj[c];
        for (int64_t c = 0; c < head_dim; ++c) ri[c] -= dot * rj[c];
      }
      double norm = 0.0;
      for (int64_t c = 0; c < head_dim; ++c) norm += ri[c] * ri[c];
      norm = std::sqrt(norm);
      for (int64_t c = 0; c < head_dim; ++c) ri[c] /= norm;
    }
    for (int64_t i = 0; i < head_dim && row0 + i < features; ++i) {
      double chi = 0.0;
      for (int64_t c = 0; c < head_dim; ++c) {
        const double g = normal(rng);
        chi += g * g;
      }
      chi = std::sqrt(chi);
      for (int64_t c = 0; c < head_dim; ++c) {
        w.row(row0 + i)[c] = static_cast<float>(block[static_cast<size_t>(i * head_dim + c)] * chi);
      }
    }
  }
  return w;
}

}  // namespace tokvec
