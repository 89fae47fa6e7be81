// Gpt2Model's forward pass (training/gpt2_model.h): the embeddings, then each block's attention and feed-forward
// sublayers with their LayerNorms (gpt2 pre-LN, encoder and RoBERTa post-LN), then gpt2's ln_f. Every activation
// the backward pass needs stays in acts_.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "training/attention_kind_kernels.h"
#include "training/gpt2_model.h"
#include "training/gpt2_model_internal.h"
#include "training/kernels.h"

namespace tokvec::training {

const float* Gpt2Model::Forward(const std::vector<int32_t>& inputs, int64_t B, int64_t T, int threads, float p,
                                uint64_t dropout_seed) {
  const int64_t C = config_.d_model, F = config_.d_ff, H = config_.n_heads, L = config_.n_layers, N = B * T;
  const float eps = static_cast<float>(config_.layer_norm_eps);
  Activations& a = acts_;
  if (a.B != B || a.T != T) {
    a.B = B;
    a.T = T;
    a.encoded.assign(Sz(N * C), 0.0f);
    for (auto* v : {&a.ln1, &a.atty, &a.residual2, &a.ln2, &a.residual3}) v->assign(Sz(L * N * C), 0.0f);
    for (auto* v : {&a.ln1_mean, &a.ln1_rstd, &a.ln2_mean, &a.ln2_rstd}) v->assign(Sz(L * N), 0.0f);
    a.qkv.assign(Sz(L * N * 3 * C), 0.0f);
    a.lse.assign(Sz(L * N * H), 0.0f);
    a.fch.assign(Sz(L * N * F), 0.0f);
    a.fch_act.assign(Sz(L * N * F), 0.0f);
    a.lnf.assign(Sz(N * C), 0.0f);
    a.lnf_mean.assign(Sz(N), 0.0f);
    a.lnf_rstd.assign(Sz(N), 0.0f);
    a.scratch.assign(Sz(N * C), 0.0f);
    if (roberta()) {
      for (auto* v : {&a.emb_in, &a.head_dense, &a.head_act, &a.head_out}) v->assign(Sz(N * C), 0.0f);
      for (auto* v : {&a.emb_mean, &a.emb_rstd, &a.head_mean, &a.head_rstd}) v->assign(Sz(N), 0.0f);
    }
  }
  // 1. Embeddings: gpt2 wte[ids] + wpe; encoder wte[ids]·√C + sinusoid (Vaswani et al. 2017, §3.4, §3.5); with
  //    rotary positions (either architecture) no table is added: RoPE rotates q and k in every layer;
  //    RoBERTa LN(word[ids] + position[pad + 1 + t] + token_type[0]).
  if (roberta()) {
    const int64_t first_position = config_.pad_token_id + 1;
    for (int64_t n = 0; n < N; ++n) {
      const float* tok = P(kWte) + int64_t{inputs[Sz(n)]} * C;        // [C]
      const float* pos = P(kWpe) + (first_position + n % T) * C;      // [C]
      const float* type = P(kTokenType);                              // [C] row 0
      for (int64_t c = 0; c < C; ++c) a.emb_in[Sz(n * C + c)] = tok[c] + pos[c] + type[c];
    }
    LayerNormForward(a.encoded.data(), a.emb_mean.data(), a.emb_rstd.data(), a.emb_in.data(), P(kEmbLnW),
                     P(kEmbLnB), N, C, eps, threads);
  } else if (encoder()) {
    const float scale = static_cast<float>(std::sqrt(static_cast<double>(C)));
    for (int64_t n = 0; n < N; ++n) {
      const float* tok = P(kWte) + int64_t{inputs[Sz(n)]} * C;  // [C]
      float* e = a.encoded.data() + n * C;                      // [C]
      for (int64_t c = 0; c < C; ++c) e[c] = tok[c] * scale;
      if (config_.rotary) continue;                              // positions come from RoPE in every layer
      const float* pos = sinusoid_.data() + (n % T) * C;        // [C]
      for (int64_t c = 0; c < C; ++c) e[c] += pos[c];
    }
  } else if (config_.rotary) {  // wte[ids] alone: positions come from RoPE in every layer
    for (int64_t n = 0; n < N; ++n) {
      const float* tok = P(kWte) + int64_t{inputs[Sz(n)]} * C;  // [C]
      std::copy(tok, tok + C, a.encoded.data() + n * C);
    }
  } else {
    EmbeddingForward(a.encoded.data(), inputs.data(), P(kWte), P(kWpe), B, T, C);
  }
  if (p > 0) {
    DropoutForward(a.encoded.data(), a.encoded.data(), N * C, p, DropoutSeed(dropout_seed, L, kEmbeddingSite));
  }
  // 2. The blocks.
  for (int64_t l = 0; l < L; ++l) {
    const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
    float* ln1 = a.ln1.data() + l * N * C;         // [N, C]
    float* res2 = a.residual2.data() + l * N * C;  // [N, C]
    float* ln2 = a.ln2.data() + l * N * C;         // [N, C]
    float* res3 = a.residual3.data() + l * N * C;  // [N, C]
    float* ln1_stats[2] = {a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N};
    float* ln2_stats[2] = {a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N};
    if (encoder()) {
      // post-LN: ln1 = LN1(x + attn(x)); ln2 = LN2(ln1 + ffn(ln1)), the layer's output
      const float* x = l == 0 ? a.encoded.data() : a.ln2.data() + (l - 1) * N * C;  // [N, C]
      AttentionSublayerForward(l, x, p, dropout_seed, threads);
      ResidualForward(res2, x, a.scratch.data(), N * C);
      LayerNormForward(ln1, ln1_stats[0], ln1_stats[1], res2, P(w + kLn1W), P(w + kLn1B), N, C, eps, threads);
      FeedForwardForward(l, ln1, p, dropout_seed, threads);
      ResidualForward(res3, ln1, a.scratch.data(), N * C);
      LayerNormForward(ln2, ln2_stats[0], ln2_stats[1], res3, P(w + kLn2W), P(w + kLn2B), N, C, eps, threads);
    } else {
      // pre-LN: res2 = x + attn(LN1(x)); res3 = res2 + ffn(LN2(res2)), the layer's output
      const float* x = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * N * C;  // [N, C]
      LayerNormForward(ln1, ln1_stats[0], ln1_stats[1], x, P(w + kLn1W), P(w + kLn1B), N, C, eps, threads);
      AttentionSublayerForward(l, ln1, p, dropout_seed, threads);
      ResidualForward(res2, x, a.scratch.data(), N * C);
      LayerNormForward(ln2, ln2_stats[0], ln2_stats[1], res2, P(w + kLn2W), P(w + kLn2B), N, C, eps, threads);
      FeedForwardForward(l, ln2, p, dropout_seed, threads);
      ResidualForward(res3, res2, a.scratch.data(), N * C);
    }
  }
  // 3. gpt2's final LayerNorm.
  if (encoder()) return L == 0 ? a.encoded.data() : a.ln2.data() + (L - 1) * N * C;
  const int lnf = first_layer_ + static_cast<int>(L) * kPerLayer;
  const float* last = L == 0 ? a.encoded.data() : a.residual3.data() + (L - 1) * N * C;
  LayerNormForward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), last, P(lnf), P(lnf + 1), N, C, eps,
                   threads);
  return a.lnf.data();
}

void Gpt2Model::AttentionSublayerForward(int64_t l, const float* x, float p, uint64_t dropout_seed, int threads) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, H = config_.n_heads, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  float* qkv = a.qkv.data() + l * N * 3 * C;  // [N, 3C]
  float* atty = a.atty.data() + l * N * C;    // [N, C]
  LinearForward(qkv, x, P(w + kAttnW), P(w + kAttnB), N, C, 3 * C, threads);
  if (config_.rotary) RotaryQK(qkv, a.B, a.T, C, H, *config_.rotary, /*inverse=*/false, threads);  // kept rotated
  const LayerAttention& la = layer_attention_[Sz(l)];
  float* lse = a.lse.data() + l * N * H;
  const uint64_t seed = DropoutSeed(dropout_seed, l, kAttentionSite);
  switch (la.kind.type) {
    case AttentionKindType::kLinformer:
      LinformerForward(atty, lse, qkv, P(la.linformer_e), P(la.linformer_e + 1), la.kind.rank, config_.max_len, a.B,
                       a.T, C, H, threads, p, seed, key_lengths_);
      break;
    case AttentionKindType::kLinear:
    case AttentionKindType::kPerformer:
      FeatureMapAttentionForward(atty, qkv, FeatureMap(la), a.B, a.T, C, H, threads, !encoder(), key_lengths_);
      break;
    default: {
      const std::optional<SparsePattern> pattern = Pattern(la, a.T);
      AttentionForward(atty, lse, qkv, a.B, a.T, C, H, threads, p, seed, /*causal=*/!encoder(), key_lengths_,
                       pattern ? &*pattern : nullptr);
    }
  }
  LinearForward(a.scratch.data(), atty, P(w + kAttnProjW), P(w + kAttnProjB), N, C, C, threads);
  if (p > 0) {
    DropoutForward(a.scratch.data(), a.scratch.data(), N * C, p, DropoutSeed(dropout_seed, l, kAttnResidualSite));
  }
}

void Gpt2Model::FeedForwardForward(int64_t l, const float* x, float p, uint64_t dropout_seed, int threads) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, F = config_.d_ff, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  float* fch = a.fch.data() + l * N * F;          // [N, F]
  float* fch_act = a.fch_act.data() + l * N * F;  // [N, F]
  LinearForward(fch, x, P(w + kFcW), P(w + kFcB), N, C, F, threads);
  ActivationForward(config_.activation, fch_act, fch, N * F, threads);
  LinearForward(a.scratch.data(), fch_act, P(w + kFcProjW), P(w + kFcProjB), N, F, C, threads);
  if (p > 0) {
    DropoutForward(a.scratch.data(), a.scratch.data(), N * C, p, DropoutSeed(dropout_seed, l, kMlpResidualSite));
  }
}

}  // namespace tokvec::training
