#include "attention/kind_attention.h"

#include <cmath>
#include <utility>

#include "attention/mask.h"
#include "attention/sparse_attention.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "kernels/ops.h"

namespace tokvec {

absl::StatusOr<HeadAttention> HeadAttention::Make(const AttentionKindWeights& weights, int64_t seq_len,
                                                  int64_t head_dim, bool causal, float scale,
                                                  std::vector<uint8_t> key_padding) {
  const AttentionKind& kind = weights.kind;
  const std::string name = AttentionKindName(kind);
  if (!key_padding.empty() && static_cast<int64_t>(key_padding.size()) != seq_len) {
    return absl::InvalidArgumentError(
        fmt::format("key padding has {} entries for {} tokens", key_padding.size(), seq_len));
  }
  if (causal && !kind.supports_causal()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} attention is bidirectional only (its projection mixes every position); use it in an encoder model, or "
        "window/longformer/bigbird/performer/linear for a causal one",
        name));
  }
  if (kind.type == AttentionKindType::kLinformer) {
    const MatrixView e = weights.linformer_e, f = weights.linformer_f;
    if (e.rows != kind.rank || f.rows != kind.rank || e.cols != f.cols || e.data == nullptr || f.data == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "{} needs projections E and F of shape [{}, N]; got E [{}, {}] and F [{}, {}]", name, kind.rank, e.rows,
          e.cols, f.rows, f.cols));
    }
    if (seq_len > e.cols) {
      return absl::OutOfRangeError(fmt::format(
          "{} tokens is longer than the linformer projections' {} positions", seq_len, e.cols));
    }
  }
  if (kind.type == AttentionKindType::kPerformer) {
    const Matrix* w = weights.performer_features.get();
    if (w == nullptr || w->rows() != kind.features || w->cols() != head_dim) {
      return absl::InvalidArgumentError(fmt::format("{} needs random features W of shape [{}, {}]", name,
                                                    kind.features, head_dim));
    }
  }
  HeadAttention h;
  h.weights_ = weights;
  h.seq_len_ = seq_len;
  h.causal_ = causal;
  h.scale_ = scale;
  h.key_padding_ = std::move(key_padding);
  if (kind.sparse()) {
    TOKVEC_ASSIGN_OR_RETURN(SparsePattern pattern, SparsePattern::Make(kind, seq_len, causal, weights.seed));
    h.pattern_ = std::move(pattern);
  }
  return h;
}

void HeadAttention::Run(StridedView q, StridedView k, StridedView v, HeadScratch* scratch, float* out,
                        int64_t out_stride, float* weights) const {
  const AttentionKind& kind = weights_.kind;
  const std::span<const uint8_t> padding(key_padding_);
  if (kind.type == AttentionKindType::kFull || kind.sparse()) {
    const bool dense = weights != nullptr || (kind.type == AttentionKindType::kFull && !padding.empty());
    if (!dense) {
      if (kind.sparse()) {
        SparseAttendHead(*pattern_, q, k, v, padding, scale_, &scratch->flash, out, out_stride);
      } else {
        FlashAttendHead(q, k, v, causal_, scale_, &scratch->flash, out, out_stride);
      }
      return;
    }
    AttentionMask mask;
    mask.causal = causal_;
    mask.key_padding = key_padding_;
    if (kind.sparse()) mask.blocked = pattern_->BlockedMask();
    float* scores = weights;
    if (scores == nullptr) {
      scratch->scores.resize(static_cast<size_t>(seq_len_ * seq_len_));
      scores = scratch->scores.data();
    }
    AttendHead(q, k, v, mask, scale_, scores, out, out_stride);
    return;
  }
  if (kind.kernel()) {
    const KernelFeatureMap map{.type = kind.type, .features = weights_.performer_features.get(), .scale = scale_};
    KernelAttendHead(map, q, k, v, causal_, padding, &scratch->kernel, out, out_stride);
    if (weights != nullptr) KernelHeadWeights(map, q, k, causal_, padding, weights);
    return;
  }
  LinformerAttendHead(weights_.linformer_e, weights_.linformer_f, q, k, v, padding, scale_, &scratch->linformer, out,
                      out_stride, weights);
}

absl::StatusOr<Matrix> AttentionOfKind(MatrixView q, MatrixView k, MatrixView v, const AttentionKindWeights& weights,
                                       const KindAttentionOptions& options, std::vector<Matrix>* head_weights) {
  const int64_t n_heads = options.n_heads;
  if (n_heads <= 0 || q.cols % n_heads != 0 || v.cols % n_heads != 0 || q.cols != k.cols) {
    return absl::InvalidArgumentError(fmt::format(
        "queries [{}, {}], keys [{}, {}], values [{}, {}] do not split into {} heads", q.rows, q.cols, k.rows, k.cols,
        v.rows, v.cols, n_heads));
  }
  if (q.rows != k.rows || k.rows != v.rows) {
    return absl::InvalidArgumentError(fmt::format(
        "{} queries, {} keys and {} values: attention kinds are self-attention (equal lengths)", q.rows, k.rows,
        v.rows));
  }
  const int64_t t = q.rows, dh = q.cols / n_heads, dv = v.cols / n_heads;
  const float scale = options.scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh))));
  TOKVEC_ASSIGN_OR_RETURN(HeadAttention head,
                          HeadAttention::Make(weights, t, dh, options.causal, scale, options.key_padding));
  if (options.keep_weights && head_weights != nullptr) {
    head_weights->assign(static_cast<size_t>(n_heads), Matrix(t, t));
  }
  Matrix context(t, v.cols);
  ParallelFor(n_heads, options.threads, [&](int64_t h) {
    // Kept per thread: a fresh scratch per head re-faulted its key panels and value copy (13% of window:256 at 16k).
    thread_local HeadScratch scratch;
    float* w = options.keep_weights && head_weights != nullptr ? (*head_weights)[static_cast<size_t>(h)].data()
                                                               : nullptr;
    head.Run({q.data + h * dh, t, dh, q.cols}, {k.data + h * dh, t, dh, k.cols}, {v.data + h * dv, t, dv, v.cols},
             &scratch, context.data() + h * dv, v.cols, w);
  });
  return context;
}

}  // namespace tokvec
