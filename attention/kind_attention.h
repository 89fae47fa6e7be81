// One head's attention of any kind (attention_kind.h), for the multi-head layer, the batched block, the bench and
// `tokvec attend`: the kind's parameters and tensors are checked once per sequence length, then Run is called per
// head (const: share it across heads and threads, each thread with its own HeadScratch).
//
//   AttentionKindWeights w{.kind = *ParseAttentionKind("window:256")};
//   TOKVEC_ASSIGN_OR_RETURN(HeadAttention head, HeadAttention::Make(w, /*seq_len=*/4096, /*head_dim=*/64,
//                                                                    /*causal=*/true, /*scale=*/0.125f));
//   HeadScratch scratch;
//   head.Run(q_h, k_h, v_h, &scratch, out_h, out_stride);           // [T, Dh] views of one head
//
//   full                   FlashAttendHead (flash_attention.h); the dense AttendHead when weights are asked
//                          for or keys are padded
//   window/longformer/     SparseAttendHead (sparse_attention.h); the dense AttendHead with the pattern as a
//   bigbird                blocked mask when weights are asked for
//   performer, linear      KernelAttendHead (kernel_attention.h)
//   linformer              LinformerAttendHead (linformer.h)
#ifndef TOKVEC_ATTENTION_KIND_ATTENTION_H_
#define TOKVEC_ATTENTION_KIND_ATTENTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/attention_kind.h"
#include "attention/flash_attention.h"
#include "attention/kernel_attention.h"
#include "attention/linformer.h"
#include "attention/scaled_dot_product.h"
#include "attention/sparse_pattern.h"
#include "kernels/tensor.h"

namespace tokvec {

// A layer's kind and what it needs besides q, k and v.
struct AttentionKindWeights {
  AttentionKind kind;
  MatrixView linformer_e;                            // linformer: E [K, N]
  MatrixView linformer_f;                            // linformer: F [K, N]
  std::shared_ptr<const Matrix> performer_features;  // performer: W [M, Dh]
  uint64_t seed = 0;                                 // bigbird: its random blocks

  bool full() const { return kind.type == AttentionKindType::kFull; }
};

struct HeadScratch {
  FlashScratch flash;
  KernelScratch kernel;
  LinformerScratch linformer;
  std::vector<float> scores;  // dense path: [T, T]
};

class HeadAttention {
 public:
  // Errors: linformer in a causal model or without E/F of shape [K, N >= seq_len] (InvalidArgument / OutOfRange
  // naming the sizes), performer without W [M, head_dim], key_padding neither empty nor [seq_len].
  static absl::StatusOr<HeadAttention> Make(const AttentionKindWeights& weights, int64_t seq_len, int64_t head_dim,
                                            bool causal, float scale, std::vector<uint8_t> key_padding = {});

  // q, k, v: [T, Dh] views of one head (Dv may differ from Dh); context rows to out. `weights`: null or [T, T]
  // (the softmax weights, or the kernel kinds' implied ones).
  void Run(StridedView q, StridedView k, StridedView v, HeadScratch* scratch, float* out, int64_t out_stride,
           float* weights = nullptr) const;

 private:
  HeadAttention() = default;
  AttentionKindWeights weights_;
  int64_t seq_len_ = 0;
  bool causal_ = false;
  float scale_ = 1.0f;
  std::vector<uint8_t> key_padding_;
  std::optional<SparsePattern> pattern_;
};

struct KindAttentionOptions {
  int64_t n_heads = 1;
  bool causal = false;
  int threads = 1;
  std::optional<float> scale;        // default 1/√head_dim
  std::vector<uint8_t> key_padding;  // empty or [T]
  bool keep_weights = false;         // fill *head_weights
};

// Multi-head, no projections: q, k, v [T, H·Dh] -> [T, H·Dh] (self-attention: equal row counts). Heads in parallel;
// each head's arithmetic is independent of `threads`.
absl::StatusOr<Matrix> AttentionOfKind(MatrixView q, MatrixView k, MatrixView v, const AttentionKindWeights& weights,
                                       const KindAttentionOptions& options,
                                       std::vector<Matrix>* head_weights = nullptr);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_KIND_ATTENTION_H_
