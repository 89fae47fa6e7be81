// Kernel ("linear") attention: a feature map φ instead of the softmax, so attention costs O(T·M·Dh) and no
// [T, T] scores exist (docs/attention_kinds.md):
//
//   out_i = φ(q_i)ᵀ·Σⱼ φ(kⱼ)·vⱼᵀ / φ(q_i)ᵀ·Σⱼ φ(kⱼ)      (sums over the visible keys; causal: j <= i)
//
//   linear      φ(x) = elu(x) + 1                                     (Katharopoulos et al. 2020)
//   performer   φ(x) = exp(W·x̃ - |x̃|²/2) / √M, x̃ = √s·x, W: [M, Dh]  (FAVOR+, Choromanski et al. 2021)
//
//   KernelFeatureMap map{.type = AttentionKindType::kPerformer, .features = &w, .scale = 0.125f};
//   KernelScratch scratch;
//   KernelAttendHead(map, q, k, v, /*causal=*/true, /*key_padding=*/{}, &scratch, out, out_stride);
//
// Rows are processed in chunks of kKernelChunk with sgemm: S = Σ φ(kⱼ)vⱼᵀ [M, Dv] and z = Σ φ(kⱼ) [M] are running
// sums (causal: a chunk's queries see S, z of the earlier chunks plus the lower triangle of their own chunk), so
// causal decoding is an RNN whose state is (S, z). Performer's exponentials are stabilized: each query row by its
// own max, the keys by a running max that rescales S and z when it grows; both factors cancel in the ratio.
#ifndef TOKVEC_ATTENTION_KERNEL_ATTENTION_H_
#define TOKVEC_ATTENTION_KERNEL_ATTENTION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_kind.h"
#include "attention/scaled_dot_product.h"
#include "kernels/tensor.h"

namespace tokvec {

inline constexpr int64_t kKernelChunk = 64;

struct KernelFeatureMap {
  AttentionKindType type = AttentionKindType::kLinear;  // kLinear or kPerformer
  const Matrix* features = nullptr;                     // performer: W [M, Dh]
  float scale = 1.0f;                                   // performer: s (x̃ = √s·x)

  int64_t width(int64_t head_dim) const {
    return type == AttentionKindType::kPerformer ? features->rows() : head_dim;
  }
};

struct KernelScratch {
  std::vector<float> phi_q, phi_k, products, state, normalizer, numerator, denominator, scaled;
};

// φ's argument for rows [row0, row0 + n) of x into e: linear: x itself [n, Dh] (φ applied later); performer:
// W·x̃ [n, M] with the key term -|x̃|²/2 when `key` (queries drop it: it cancels in their ratio). Uses s->scaled.
void KernelExponents(const KernelFeatureMap& map, StridedView x, int64_t row0, int64_t n, bool key, KernelScratch* s,
                     float* e);

// Unchecked: q, k, v have the same row count T (self-attention); key_padding empty or [T].
void KernelAttendHead(const KernelFeatureMap& map, StridedView q, StridedView k, StridedView v, bool causal,
                      std::span<const uint8_t> key_padding, KernelScratch* scratch, float* out, int64_t out_stride);

// The implied weights [T, T]: w_ij = φ(q_i)·φ(kⱼ) / Σⱼ′ φ(q_i)·φ(kⱼ′) over visible keys (zero elsewhere). For
// `tokvec attend` and tests; O(T²).
void KernelHeadWeights(const KernelFeatureMap& map, StridedView q, StridedView k, bool causal,
                       std::span<const uint8_t> key_padding, float* weights);

// Performer's W [M, Dh]: ⌈M/Dh⌉ blocks of Dh orthogonal rows (Gram–Schmidt on seeded Gaussian rows), each row
// rescaled to the norm of an independent Gaussian vector of length Dh; the first M rows. Same seed, same W.
absl::StatusOr<Matrix> PerformerFeatures(int64_t features, int64_t head_dim, uint64_t seed);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_KERNEL_ATTENTION_H_
