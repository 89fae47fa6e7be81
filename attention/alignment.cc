#include "attention/alignment.h"

#include <cblas.h>

#include <cmath>
#include <vector>

#include "fmt/format.h"

namespace tokvec {
namespace {

// Masks and softmaxes the scores [Tq, Tk] in place, then context = weights · keys.  -> [Tq, Dh]
Alignment Finish(Matrix scores, MatrixView keys, const AttentionMask& mask) {
  for (int64_t i = 0; i < scores.rows(); ++i) {
    if (!mask.empty()) ApplyMaskToRow(mask, i, scores.rows(), scores.cols(), scores.row(i));
    SoftmaxInPlace({scores.row(i), static_cast<size_t>(scores.cols())});
  }
  Alignment result;
  result.context = Matrix(scores.rows(), keys.cols);  // [Tq, Dh]
  if (scores.rows() > 0 && keys.rows > 0 && keys.cols > 0) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(scores.rows()),
                static_cast<blasint>(keys.cols), static_cast<blasint>(keys.rows), 1.0f, scores.data(),
                static_cast<blasint>(scores.cols()), keys.data, static_cast<blasint>(keys.cols), 0.0f,
                result.context.data(), static_cast<blasint>(keys.cols));
  }
  result.weights = std::move(scores);
  return result;
}

// scores = a · bᵀ   a: [Tq, K], b: [Tk, K] -> [Tq, Tk]
Matrix DotScores(MatrixView a, MatrixView b) {
  Matrix scores(a.rows, b.rows);
  if (a.rows > 0 && b.rows > 0 && a.cols > 0) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(a.rows), static_cast<blasint>(b.rows),
                static_cast<blasint>(a.cols), 1.0f, a.data, static_cast<blasint>(a.cols), b.data,
                static_cast<blasint>(b.cols), 0.0f, scores.data(), static_cast<blasint>(b.rows));
  }
  return scores;
}

}  // namespace

absl::StatusOr<Alignment> AdditiveAttention(MatrixView queries, MatrixView keys, const AdditiveScorer& scorer,
                                            const AttentionMask& mask) {
  UseSingleThreadedBlas();
  const int64_t ds = queries.cols, dh = keys.cols;
  if (absl::Status s = ValidateLinear(scorer.w, ds + dh, 0, "additive attention W"); !s.ok()) return s;
  const int64_t a_dim = scorer.w.out_features();
  if (static_cast<int64_t>(scorer.v.size()) != a_dim) {
    return absl::InvalidArgumentError(
        fmt::format("additive attention v has {} values; expected {} (W's output size)", scorer.v.size(), a_dim));
  }
  if (absl::Status s = ValidateMask(mask, queries.rows, keys.rows); !s.ok()) return s;
  // W·[s; h] = W_s·s + W_h·h: W's first Ds inputs see the query, the last Dh the key.
  LinearWeights w_s = scorer.w, w_h = scorer.w;
  w_s.bias = {};
  w_h.bias = {};
  w_s.packed = w_h.packed = nullptr;  // packings are of the whole W
  w_s.low = w_h.low = nullptr;
  if (scorer.w.layout == WeightLayout::kOutIn) {  // [A, Ds + Dh]: column slices
    w_s.weight = {scorer.w.weight.data, a_dim, ds};
    w_h.weight = {scorer.w.weight.data + ds, a_dim, dh};
  } else {  // [Ds + Dh, A]: row slices
    w_s.weight = {scorer.w.weight.data, ds, a_dim};
    w_h.weight = {scorer.w.weight.data + ds * scorer.w.ld(), dh, a_dim};
  }
  w_s.row_stride = w_h.row_stride = scorer.w.ld();
  Matrix projected_s(queries.rows, a_dim);  // [Tq, A]
  Matrix projected_h(keys.rows, a_dim);     // [Tk, A]
  LinearInto(queries, w_s, projected_s.data(), 1);
  LinearInto(keys, w_h, projected_h.data(), 1);
  Matrix scores(queries.rows, keys.rows);  // [Tq, Tk]
  for (int64_t i = 0; i < queries.rows; ++i) {
    for (int64_t j = 0; j < keys.rows; ++j) {
      // vᵀ·tanh(W_s·s_i + W_h·h_j + b): the tanh sits between the products, so this is no GEMM.
      double score = 0.0;
      for (int64_t a = 0; a < a_dim; ++a) {
        const size_t k = static_cast<size_t>(a);
        const double bias = scorer.w.bias.empty() ? 0.0 : scorer.w.bias[k];
        score += scorer.v[k] * std::tanh(static_cast<double>(projected_s.at(i, a)) + projected_h.at(j, a) + bias);
      }
      scores.at(i, j) = static_cast<float>(score);
    }
  }
  return Finish(std::move(scores), keys, mask);
}

absl::StatusOr<Alignment> DotAttention(MatrixView queries, MatrixView keys, const AttentionMask& mask) {
  UseSingleThreadedBlas();
  if (queries.cols != keys.cols) {
    return absl::InvalidArgumentError(fmt::format(
        "dot attention needs queries and keys of equal width, got {} and {}; use general attention",
        queries.cols, keys.cols));
  }
  if (absl::Status s = ValidateMask(mask, queries.rows, keys.rows); !s.ok()) return s;
  return Finish(DotScores(queries, keys), keys, mask);
}

absl::StatusOr<Alignment> GeneralAttention(MatrixView queries, MatrixView keys, MatrixView w,
                                           const AttentionMask& mask) {
  UseSingleThreadedBlas();
  if (w.rows != queries.cols || w.cols != keys.cols) {
    return absl::InvalidArgumentError(fmt::format(
        "general attention W is [{}, {}]; expected [{}, {}] (query width, key width)", w.rows, w.cols,
        queries.cols, keys.cols));
  }
  if (absl::Status s = ValidateMask(mask, queries.rows, keys.rows); !s.ok()) return s;
  Matrix projected(queries.rows, keys.cols);  // [Tq, Dh] = s · W
  LinearInto(queries, {.weight = w, .bias = {}, .layout = WeightLayout::kInOut}, projected.data(), 1);
  return Finish(DotScores(projected.view(), keys), keys, mask);
}

}  // namespace tokvec
