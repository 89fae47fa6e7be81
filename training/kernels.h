// The forward and backward kernels of GPT-2 training, side by side (llm.c style: each `*_forward` next to its
// `*_backward`, every buffer's shape in a comment).
//
// Shape legend: B batch, T seq_len, N = B·T rows, C d_model, H n_heads, Dh = C / H, F feed-forward width,
// V vocab_size. Every matrix is row-major; GPT-2's Conv1D weights are [in, out] (y = x·W + b).
//
//   LinearForward(y, x, w, b, N, C, 3 * C, threads);                 // y: [N, 3C]
//   LinearBackward(dx, dw, db, dy, x, w, N, C, 3 * C, threads);      // dx: [N, C] (written), dw/db accumulated
//
// Conventions: parameter gradients (dw, db, dweight, dbias, dwte, dwpe) are always ACCUMULATED (+=) so gradient
// accumulation and the tied embedding need no extra buffers; input gradients are WRITTEN unless the comment says
// "accumulated" (LayerNormBackward adds into dinp because it always sits on a residual path).
//
// Determinism: work is split into fixed-size blocks of rows, columns or (batch, head) pairs that do not depend on
// the thread count, and every reduction across blocks runs in block order on one thread, so any `threads` gives
// the same bits. OpenBLAS runs single-threaded (kernels/ops.h UseSingleThreadedBlas).
#ifndef TOKVEC_TRAINING_KERNELS_H_
#define TOKVEC_TRAINING_KERNELS_H_

#include <cstdint>

#include "attention/sparse_pattern.h"
#include "embeddings/positional.h"
#include "kernels/ops.h"

namespace tokvec::training {

// Targets with this value take no part in the loss (PyTorch cross_entropy(ignore_index=-1), as nanoGPT).
inline constexpr int32_t kIgnoreIndex = -1;

// out[b, t] = wte[ids[b, t]] + wpe[t].  ids: [N] (ids < V checked by the caller), wte: [V, C], wpe: [>=T, C].
void EmbeddingForward(float* out, const int32_t* ids, const float* wte, const float* wpe, int64_t B, int64_t T,
                      int64_t C);
// dwte[ids[b, t]] += dout[b, t]; dwpe[t] += dout[b, t] (rows in order b, t). dout: [N, C].
void EmbeddingBackward(float* dwte, float* dwpe, const float* dout, const int32_t* ids, int64_t B, int64_t T,
                       int64_t C);

// LayerNorm (Ba et al. 2016) over the last dimension, torch.nn.LayerNorm: out = (x - mean)·rstd·weight + bias with
// rstd = 1/sqrt(var + eps), biased variance. Keeps mean and rstd ([N] each) for the backward pass.
// Checked against the reference LayerNormInto (kernels/ops.h) in tests/training/layer_norm_reference_test.cc.
void LayerNormForward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                      const float* bias, int64_t N, int64_t C, float eps, int threads);
// dinp: [N, C] ACCUMULATED; dweight, dbias: [C] accumulated. With n = (x - mean)·rstd and g = dout·weight:
// dx = rstd·(g - mean(g) - n·mean(g·n)).
void LayerNormBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                       const float* weight, const float* mean, const float* rstd, int64_t N, int64_t C,
                       int threads);

// out: [N, OC] = inp [N, IC] · weight [IC, OC] + bias [OC] (bias may be null).
void LinearForward(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t IC,
                   int64_t OC, int threads);
// dinp [N, IC] = dout · weightᵀ (written; skipped when null); dweight [IC, OC] += inpᵀ · dout;
// dbias [OC] += column sums of dout (skipped when null).
void LinearBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                    const float* weight, int64_t N, int64_t IC, int64_t OC, int threads);

// out[i] = act(inp[i]) over n values (GELU exact, GELU tanh, ReLU; kernels/ops.h).
void ActivationForward(Activation activation, float* out, const float* inp, int64_t n, int threads);
// dinp[i] = act'(inp[i])·dout[i] (written).
void ActivationBackward(Activation activation, float* dinp, const float* inp, const float* dout, int64_t n,
                        int threads);

// Dropout (Srivastava et al. 2014) with a counter-based mask: element i of a site is kept when
// DropoutUniform(seed, i) >= p and then scaled by 1/(1 - p). The mask is a pure function of (seed, i), so the
// backward pass regenerates it instead of storing it, and it is the same for any thread count.
float DropoutUniform(uint64_t seed, uint64_t index);  // in [0, 1)
// A seed for one site (layer, place) of one micro-batch, mixed from the run's seed and small integers.
uint64_t DropoutSeed(uint64_t base, uint64_t a, uint64_t b);
// out[i] = keep(i) ? inp[i] / (1 - p) : 0 (in place allowed). Backward: dinp[i] = keep(i) ? dout[i] / (1 - p) : 0.
void DropoutForward(float* out, const float* inp, int64_t n, float p, uint64_t seed);
void DropoutBackward(float* dinp, const float* dout, int64_t n, float p, uint64_t seed);

// Scaled dot-product attention (Vaswani et al. 2017) over GPT-2's fused qkv ([N, 3C]: q | k | v, head h
// in columns h·Dh .. h·Dh + Dh of each third). out: [N, C] (head h in columns h·Dh..), lse: [B, H, T], the
// log-sum-exp of each row's scaled scores, which is all the backward pass keeps (FlashAttention-2, Dao 2023,
// https://arxiv.org/abs/2307.08691): memory O(T) per head instead of the [T, T] weights.
// With dropout > 0 the weights p_ij are dropped (element ((b·H + h)·T + i)·T + j of a DropoutForward mask with
// dropout_seed) after the softmax, as GPT-2's attn_dropout; lse stays that of the undropped softmax.
// causal = false makes it bidirectional (the encoder); key_lengths ([B], each in [1, T], or null) masks keys
// j >= key_lengths[b] for every query of row b (torch's key_padding_mask), so padding gets no weight.
// pattern (null, or made for seq_len T and the same `causal`): a sparse kind (window, longformer, bigbird): query i
// sees only its pattern's keys, and each block of queries computes scores for the union of its rows' key intervals
// only (O(T·visible) time); a query that sees no key gets zero output and lse -inf.
void AttentionForward(float* out, float* lse, const float* qkv, int64_t B, int64_t T, int64_t C, int64_t H,
                      int threads, float dropout = 0.0f, uint64_t dropout_seed = 0, bool causal = true,
                      const int32_t* key_lengths = nullptr, const SparsePattern* pattern = nullptr);
// dqkv: [N, 3C] (written) from dout [N, C], recomputing p_ij = exp(s_ij - lse_i):
// dv_j = Σ_i p_ij·do_i;  ds_ij = p_ij·(do_i·v_j - do_i·o_i);  dq_i = scale·Σ_j ds_ij·k_j;  dk_j = scale·Σ_i ds_ij·q_i.
// With dropout, m_ij ∈ {0, 1/(1-p)} the regenerated mask: dv_j = Σ_i p_ij·m_ij·do_i and
// ds_ij = p_ij·(m_ij·do_i·v_j - do_i·o_i) (FlashAttention-2's rule; do_i·o_i is still Σ_j p_ij·m_ij·do_i·v_j).
void AttentionBackward(float* dqkv, const float* dout, const float* out, const float* lse, const float* qkv,
                       int64_t B, int64_t T, int64_t C, int64_t H, int threads, float dropout = 0.0f,
                       uint64_t dropout_seed = 0, bool causal = true, const int32_t* key_lengths = nullptr,
                       const SparsePattern* pattern = nullptr);

// RoPE (Su et al. 2021) on the q and k thirds of a fused qkv [B·T, 3C], every head, row n at position n % T, with
// the same angles and arithmetic as inference (embeddings/positional.h ApplyRotaryToHead: cos and sin in double).
// inverse = true rotates by the opposite angles: the backward pass, since a rotation's transpose is its inverse
// (dq_before = R(-θ)·dq_after). v is not touched.
void RotaryQK(float* qkv, int64_t B, int64_t T, int64_t C, int64_t H, const RotaryOptions& options, bool inverse,
              int threads);

// out [n] = a + b.
void ResidualForward(float* out, const float* a, const float* b, int64_t n);

// The tied LM head and cross-entropy: logits = x·wteᵀ ([N, V]), loss_i = logsumexp(logits_i) - logits_i[target_i].
// Returns the SUM of loss_i over rows whose target is not kIgnoreIndex (`valid` gets their count). When dx is
// not null it also runs the backward pass with dloss_i = grad_scale for every valid row (the caller passes
// 1/valid for a mean, divided again by the accumulation steps): dx [N, C] written, dwte [V, C] accumulated.
// Logits are made a block of rows at a time, never [N, V] at once. Targets outside [0, V) other than
// kIgnoreIndex are checked by the caller.
// bias ([V], or null) is added to every row's logits (RoBERTa's lm_head.bias); dbias [V] is then accumulated.
double CrossEntropyForwardBackward(const float* x, const float* wte, const int32_t* targets, int64_t N, int64_t C,
                                   int64_t V, float grad_scale, float* dx, float* dwte, int64_t* valid,
                                   int threads, const float* bias = nullptr, float* dbias = nullptr);

namespace kernels_internal {
// Element-wise passes built for the baseline and for AVX-512 (the callers pick by CPU), exposed so tests check that
// both give the same bits; the *Avx512 ones need a CPU with AVX-512F. The LM head's softmax over `rows` rows of
// logits [rows, V] in place (loss per row, dlogits when `backward`):
void SoftmaxRowsPortable(float* logits, int64_t rows, int64_t V, const int32_t* targets, const float* bias,
                         float grad_scale, bool backward, double* row_loss);
void SoftmaxRowsAvx512(float* logits, int64_t rows, int64_t V, const int32_t* targets, const float* bias,
                       float grad_scale, bool backward, double* row_loss);
// GPT-2's tanh GELU over [begin, end) and its backward (dinp = gelu'(x)·dout), likewise in two builds.
void GeluTanhForwardPortable(float* out, const float* inp, int64_t begin, int64_t end);
void GeluTanhForwardAvx512(float* out, const float* inp, int64_t begin, int64_t end);
void GeluTanhBackwardPortable(float* dinp, const float* inp, const float* dout, int64_t begin, int64_t end);
void GeluTanhBackwardAvx512(float* dinp, const float* inp, const float* dout, int64_t begin, int64_t end);
}  // namespace kernels_internal

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_KERNELS_H_
