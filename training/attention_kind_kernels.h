// Forward and backward kernels of the attention kinds that are not a softmax over a subset of keys (the sparse
// kinds run in training/kernels.h AttentionForward with a SparsePattern): Linformer and the kernel ("linear")
// attentions, over GPT-2's fused qkv [N, 3C] like the other training kernels. Definitions: docs/attention_kinds.md.
//
//   LinformerForward(out, lse, qkv, e, f, K, max_len, B, T, C, H, threads);
//   LinformerBackward(dqkv, de, df, dout, out, lse, qkv, e, f, K, max_len, B, T, C, H, threads);
//
// Same conventions as training/kernels.h: input gradients written, parameter gradients (dE, dF) accumulated, work
// split into fixed (batch row, head) pairs and every cross-pair reduction run in a fixed order, so any `threads`
// gives the same bits.
#ifndef TOKVEC_TRAINING_ATTENTION_KIND_KERNELS_H_
#define TOKVEC_TRAINING_ATTENTION_KIND_KERNELS_H_

#include <cstdint>

#include "attention/kernel_attention.h"

namespace tokvec::training {

// Linformer (Wang et al. 2020), bidirectional: for each (b, h), with n = key_lengths[b] (or T) visible keys,
//   k' = E[:, :n]·k[:n],  v' = F[:, :n]·v[:n]   [K, Dh]
//   p = softmax(s·q·k'ᵀ) [T, K],  out = p·v'      (s = 1/√Dh)
// e, f: [K, max_len] (T <= max_len), shared by the heads. lse [B, H, T] is each row's log-sum-exp. With dropout the
// weights p_ir are dropped (element ((b·H + h)·T + i)·K + r of a DropoutForward mask with dropout_seed).
void LinformerForward(float* out, float* lse, const float* qkv, const float* e, const float* f, int64_t K,
                      int64_t max_len, int64_t B, int64_t T, int64_t C, int64_t H, int threads, float dropout = 0.0f,
                      uint64_t dropout_seed = 0, const int32_t* key_lengths = nullptr);
// dqkv [N, 3C] written (padded keys get zero dk, dv); de, df [K, max_len] accumulated (columns < n of each row):
// dk' = dSᵀ·q, dv' = (P∘M)ᵀ·dO, dk[:n] = E[:, :n]ᵀ·dk', dE[:, :n] += dk'·k[:n]ᵀ (likewise F with v).
void LinformerBackward(float* dqkv, float* de, float* df, const float* dout, const float* out, const float* lse,
                       const float* qkv, const float* e, const float* f, int64_t K, int64_t max_len, int64_t B,
                       int64_t T, int64_t C, int64_t H, int threads, float dropout = 0.0f, uint64_t dropout_seed = 0,
                       const int32_t* key_lengths = nullptr);

// Kernel attention (linear: φ = elu + 1; performer: FAVOR+ with map.features W [M, Dh] and map.scale s), causal or
// bidirectional, keys >= key_lengths[b] padded: the inference kernel (attention/kernel_attention.h
// KernelAttendHead), one call per (b, h). No attention dropout: there are no weights to drop.
void FeatureMapAttentionForward(float* out, const float* qkv, const KernelFeatureMap& map, int64_t B, int64_t T,
                                int64_t C, int64_t H, int threads, bool causal,
                                const int32_t* key_lengths = nullptr);
// dqkv [N, 3C] written, from dout [N, C] and the forward's out. With den_i = φ(q_i)·z_i and o_i = num_i / den_i:
// g_i = do_i / den_i, e_i = -(do_i·o_i) / den_i; bidirectional dφ(q_i) = S·g_i + e_i·z, dS = Σ φ(q_i)g_iᵀ,
// dz = Σ e_i φ(q_i), dφ(k_j) = dS·v_j + dz, dv_j = dSᵀφ(k_j). Causal runs the chunks in reverse with the later
// chunks' Σ φ(q_i)g_iᵀ and Σ e_i φ(q_i) as running sums (R, r) and the chunk's own lower triangle, performer's key
// scales matched to the forward's running max. Then through φ: linear dx = dφ·(x > 0 ? 1 : φ(x)); performer
// dx̃ = Wᵀ(dφ∘φ) (keys also - x̃·Σ(dφ∘φ)), dx = √s·dx̃ (the per-row and per-chunk stabilizers cancel in the
// ratio, so they carry no gradient).
void FeatureMapAttentionBackward(float* dqkv, const float* dout, const float* out, const float* qkv,
                                 const KernelFeatureMap& map, int64_t B, int64_t T, int64_t C, int64_t H,
                                 int threads, bool causal, const int32_t* key_lengths = nullptr);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_ATTENTION_KIND_KERNELS_H_
