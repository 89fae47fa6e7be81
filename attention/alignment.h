// The attention scorers of neural machine translation, before the Transformer. A decoder state s_i (query)
// scores every encoder state h_j (key and value), the scores are softmaxed into alignment weights a_ij, and the
// context vector is c_i = Σ_j a_ij · h_j.
//
//   additive      (Bahdanau et al. 2014, https://arxiv.org/abs/1409.0473):  score = vᵀ·tanh(W·[s; h] + b)
//   dot           (Luong et al. 2015, https://arxiv.org/abs/1508.04025):    score = sᵀ·h
//   general       (Luong et al. 2015):                                      score = sᵀ·W·h
//
//   AdditiveScorer scorer{.w = {.weight = w /* [A, Ds + Dh] */, .bias = b}, .v = v /* [A] */};
//   TOKVEC_ASSIGN_OR_RETURN(Alignment a, AdditiveAttention(states, encoder, scorer));
//   // a.weights: [Tq, Tk], rows sum to 1;  a.context: [Tq, Dh]
#ifndef TOKVEC_ATTENTION_ALIGNMENT_H_
#define TOKVEC_ATTENTION_ALIGNMENT_H_

#include <span>

#include "absl/status/statusor.h"
#include "attention/mask.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace tokvec {

struct Alignment {
  Matrix weights;  // [Tq, Tk] alignment weights a_ij
  Matrix context;  // [Tq, Dh] context vectors c_i
};

struct AdditiveScorer {
  LinearWeights w;             // W on the concatenation [s; h]: in = Ds + Dh, out = A (either layout)
  std::span<const float> v;    // [A]
};

// queries: [Tq, Ds] decoder states; keys: [Tk, Dh] encoder states (also the values).
absl::StatusOr<Alignment> AdditiveAttention(MatrixView queries, MatrixView keys, const AdditiveScorer& scorer,
                                            const AttentionMask& mask = {});

// Luong dot: needs Ds == Dh.
absl::StatusOr<Alignment> DotAttention(MatrixView queries, MatrixView keys, const AttentionMask& mask = {});

// Luong general: w is [Ds, Dh] (score = s·W·hᵀ).
absl::StatusOr<Alignment> GeneralAttention(MatrixView queries, MatrixView keys, MatrixView w,
                                           const AttentionMask& mask = {});

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_ALIGNMENT_H_
