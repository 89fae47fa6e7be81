// Gpt2Model's backward pass (training/gpt2_model.h): from d(output) through gpt2's ln_f, the blocks last to first
// (each sublayer's dropout, linear layers, activation and attention in reverse) and the embedding tables; every
// parameter's gradient is accumulated in grads_.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "training/attention_kind_kernels.h"
#include "training/gpt2_model.h"
#include "training/gpt2_model_internal.h"
#include "training/kernels.h"

namespace tokvec::training {

void Gpt2Model::AttentionSublayerBackward(int64_t l, const float* x, const float* dout, float* dx, float p,
                                          uint64_t dropout_seed, int threads, BackwardScratch& s) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, H = config_.n_heads, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  const float* qkv = a.qkv.data() + l * N * 3 * C;  // [N, 3C]
  const float* atty = a.atty.data() + l * N * C;    // [N, C]
  if (p > 0) {
    DropoutBackward(s.dropped.data(), dout, N * C, p, DropoutSeed(dropout_seed, l, kAttnResidualSite));
    dout = s.dropped.data();
  }
  LinearBackward(s.datty.data(), G(w + kAttnProjW), G(w + kAttnProjB), dout, atty, P(w + kAttnProjW), N, C, C,
                 threads);
  const LayerAttention& la = layer_attention_[Sz(l)];
  const float* lse = a.lse.data() + l * N * H;
  const uint64_t seed = DropoutSeed(dropout_seed, l, kAttentionSite);
  switch (la.kind.type) {
    case AttentionKindType::kLinformer:
      LinformerBackward(s.dqkv.data(), G(la.linformer_e), G(la.linformer_e + 1), s.datty.data(), atty, lse, qkv,
                        P(la.linformer_e), P(la.linformer_e + 1), la.kind.rank, config_.max_len, a.B, a.T, C, H,
                        threads, p, seed, key_lengths_);
      break;
    case AttentionKindType::kLinear:
    case AttentionKindType::kPerformer:
      FeatureMapAttentionBackward(s.dqkv.data(), s.datty.data(), atty, qkv, FeatureMap(la), a.B, a.T, C, H, threads,
                                  !encoder(), key_lengths_);
      break;
    default: {
      const std::optional<SparsePattern> pattern = Pattern(la, a.T);
      AttentionBackward(s.dqkv.data(), s.datty.data(), atty, lse, qkv, a.B, a.T, C, H, threads, p, seed,
                        /*causal=*/!encoder(), key_lengths_, pattern ? &*pattern : nullptr);
    }
  }
  if (config_.rotary) RotaryQK(s.dqkv.data(), a.B, a.T, C, H, *config_.rotary, /*inverse=*/true, threads);
  LinearBackward(dx, G(w + kAttnW), G(w + kAttnB), s.dqkv.data(), x, P(w + kAttnW), N, C, 3 * C, threads);
}

void Gpt2Model::FeedForwardBackward(int64_t l, const float* x, const float* dout, float* dx, float p,
                                    uint64_t dropout_seed, int threads, BackwardScratch& s) {
  Activations& a = acts_;
  const int64_t C = config_.d_model, F = config_.d_ff, N = a.B * a.T;
  const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
  const float* fch = a.fch.data() + l * N * F;          // [N, F]
  const float* fch_act = a.fch_act.data() + l * N * F;  // [N, F]
  if (p > 0) {
    DropoutBackward(s.dropped.data(), dout, N * C, p, DropoutSeed(dropout_seed, l, kMlpResidualSite));
    dout = s.dropped.data();
  }
  LinearBackward(s.dact.data(), G(w + kFcProjW), G(w + kFcProjB), dout, fch_act, P(w + kFcProjW), N, F, C, threads);
  ActivationBackward(config_.activation, s.dhidden.data(), fch, s.dact.data(), N * F, threads);
  LinearBackward(dx, G(w + kFcW), G(w + kFcB), s.dhidden.data(), x, P(w + kFcW), N, C, F, threads);
}

void Gpt2Model::Backward(const std::vector<int32_t>& inputs, std::vector<float>& dout, float p,
                         uint64_t dropout_seed, int threads) {
  Activations& a = acts_;
  const int64_t B = a.B, T = a.T, C = config_.d_model, F = config_.d_ff, L = config_.n_layers, N = B * T;
  std::vector<float> dres(Sz(N * C), 0.0f);   // [N, C] d(a layer's output), then d(its input)
  std::vector<float> dres2(Sz(N * C), 0.0f);  // [N, C] d(the residual sum after attention)
  std::vector<float> dbuf(Sz(N * C), 0.0f);   // [N, C] d(a LayerNorm's output)
  BackwardScratch s{.dropped = std::vector<float>(p > 0 ? Sz(N * C) : 0), .datty = std::vector<float>(Sz(N * C)),
                    .dhidden = std::vector<float>(Sz(N * F)), .dact = std::vector<float>(Sz(N * F)),
                    .dqkv = std::vector<float>(Sz(N * 3 * C))};
  // 1. gpt2's ln_f (the encoder's output is its last block's).
  if (encoder()) {
    dres.swap(dout);
  } else {
    const int lnf = first_layer_ + static_cast<int>(L) * kPerLayer;
    const float* last = L == 0 ? a.encoded.data() : a.residual3.data() + (L - 1) * N * C;
    LayerNormBackward(dres.data(), G(lnf), G(lnf + 1), dout.data(), last, P(lnf), a.lnf_mean.data(),
                      a.lnf_rstd.data(), N, C, threads);
  }

  // 2. The blocks, last to first.
  std::vector<float> dres3(encoder() ? Sz(N * C) : 0);  // [N, C] encoder: d(ln1 + ffn(ln1)) before LN2
  for (int64_t l = L - 1; l >= 0; --l) {
    const int w = first_layer_ + static_cast<int>(l) * kPerLayer;
    const float* ln1 = a.ln1.data() + l * N * C;
    const float* res2 = a.residual2.data() + l * N * C;
    const float* ln2 = a.ln2.data() + l * N * C;
    const float* ln1_stats[2] = {a.ln1_mean.data() + l * N, a.ln1_rstd.data() + l * N};
    const float* ln2_stats[2] = {a.ln2_mean.data() + l * N, a.ln2_rstd.data() + l * N};
    if (encoder()) {
      const float* x = l == 0 ? a.encoded.data() : a.ln2.data() + (l - 1) * N * C;
      const float* res3 = a.residual3.data() + l * N * C;
      // out = LN2(res3), res3 = ln1 + ffn(ln1): d ln1 = dres3 + ffn'ᵀ dres3
      std::fill(dres3.begin(), dres3.end(), 0.0f);
      LayerNormBackward(dres3.data(), G(w + kLn2W), G(w + kLn2B), dres.data(), res3, P(w + kLn2W), ln2_stats[0],
                        ln2_stats[1], N, C, threads);
      FeedForwardBackward(l, ln1, dres3.data(), dbuf.data(), p, dropout_seed, threads, s);
      for (int64_t i = 0; i < N * C; ++i) dbuf[Sz(i)] += dres3[Sz(i)];
      // ln1 = LN1(res2), res2 = x + attn(x): d x = dres2 + attn'ᵀ dres2
      std::fill(dres2.begin(), dres2.end(), 0.0f);
      LayerNormBackward(dres2.data(), G(w + kLn1W), G(w + kLn1B), dbuf.data(), res2, P(w + kLn1W), ln1_stats[0],
                        ln1_stats[1], N, C, threads);
      AttentionSublayerBackward(l, x, dres2.data(), dbuf.data(), p, dropout_seed, threads, s);
      for (int64_t i = 0; i < N * C; ++i) dres[Sz(i)] = dres2[Sz(i)] + dbuf[Sz(i)];
    } else {
      const float* x = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * N * C;
      // res3 = res2 + ffn(LN2(res2)): d res2 = dres + LN2'ᵀ ffn'ᵀ dres
      FeedForwardBackward(l, ln2, dres.data(), dbuf.data(), p, dropout_seed, threads, s);
      dres2 = dres;
      LayerNormBackward(dres2.data(), G(w + kLn2W), G(w + kLn2B), dbuf.data(), res2, P(w + kLn2W), ln2_stats[0],
                        ln2_stats[1], N, C, threads);
      // res2 = x + attn(LN1(x)): d x = dres2 + LN1'ᵀ attn'ᵀ dres2
      AttentionSublayerBackward(l, ln1, dres2.data(), dbuf.data(), p, dropout_seed, threads, s);
      dres = dres2;
      LayerNormBackward(dres.data(), G(w + kLn1W), G(w + kLn1B), dbuf.data(), x, P(w + kLn1W), ln1_stats[0],
                        ln1_stats[1], N, C, threads);
    }
  }
  // 3. The embedding tables (through the embedding dropout).
  if (p > 0) DropoutBackward(dres.data(), dres.data(), N * C, p, DropoutSeed(dropout_seed, L, kEmbeddingSite));
  if (roberta()) {
    std::vector<float> demb(Sz(N * C), 0.0f);  // [N, C] d(word + position + token type)
    LayerNormBackward(demb.data(), G(kEmbLnW), G(kEmbLnB), dres.data(), a.emb_in.data(), P(kEmbLnW),
                      a.emb_mean.data(), a.emb_rstd.data(), N, C, threads);
    const int64_t first_position = config_.pad_token_id + 1;
    for (int64_t n = 0; n < N; ++n) {  // rows in order: the same sums for any thread count
      float* word = G(kWte) + int64_t{inputs[Sz(n)]} * C;
      float* pos = G(kWpe) + (first_position + n % T) * C;
      float* type = G(kTokenType);
      for (int64_t c = 0; c < C; ++c) {
        const float d = demb[Sz(n * C + c)];
        word[c] += d;
        pos[c] += d;
        type[c] += d;
      }
    }
  } else if (encoder()) {
    const float scale = static_cast<float>(std::sqrt(static_cast<double>(C)));
    float* dwte = G(kWte);
    for (int64_t n = 0; n < N; ++n) {
      float* row = dwte + int64_t{inputs[Sz(n)]} * C;  // [C]
      for (int64_t c = 0; c < C; ++c) row[c] += dres[Sz(n * C + c)] * scale;
    }
  } else if (config_.rotary) {
    float* dwte = G(kWte);
    for (int64_t n = 0; n < N; ++n) {  // rows in order: the same sums for any thread count
      float* row = dwte + int64_t{inputs[Sz(n)]} * C;  // [C]
      for (int64_t c = 0; c < C; ++c) row[c] += dres[Sz(n * C + c)];
    }
  } else {
    EmbeddingBackward(G(kWte), G(kWpe), dres.data(), inputs.data(), B, T, C);
  }
}

}  // namespace tokvec::training
