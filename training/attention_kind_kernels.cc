#include "training/attention_kind_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "kernels/ops.h"
#include "training/kernels.h"
#include "training/vector_math.h"

namespace tokvec::training {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Key positions per block of the deterministic dE/dF reduction.
constexpr int64_t kKeyBlock = 64;

size_t Sz(int64_t n) { return static_cast<size_t>(n); }

// C [m, n] (ldc) = alpha·op(A)·op(B) + beta·C, row-major.
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, a,
              static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}

// One (b, h) pair's strided views into the fused qkv [N, 3C] and the [N, C] rows of out/dout.
struct Head {
  int64_t b, h, bh;
  const float* q;  // [T, Dh], row stride 3C
  const float* k;
  const float* v;
  int64_t keys;  // visible keys (key_lengths[b], or T)
};

Head MakeHead(const float* qkv, int64_t bh, int64_t T, int64_t C, int64_t H, const int32_t* key_lengths) {
  const int64_t b = bh / H, h = bh % H, Dh = C / H;
  const float* base = qkv + b * T * 3 * C;
  return {b, h, bh, base + h * Dh, base + C + h * Dh, base + 2 * C + h * Dh,
          key_lengths != nullptr ? key_lengths[b] : T};
}

float LinformerDropout(float dropout, float keep_scale, uint64_t seed, int64_t bh, int64_t T, int64_t K, int64_t i,
                       int64_t r) {
  return DropoutUniform(seed, static_cast<uint64_t>((bh * T + i) * K + r)) >= dropout ? keep_scale : 0.0f;
}

// ek = E[:, :n]·k[:n], fv = F[:, :n]·v[:n] ([K, Dh] each); s [T, K] = scale·q·ekᵀ.
void LinformerScores(const Head& hd, const float* e, const float* f, int64_t K, int64_t max_len, int64_t T,
                     int64_t Dh, int64_t C3, float scale, float* ek, float* fv, float* s) {
  Gemm(false, false, K, Dh, hd.keys, 1.0f, e, max_len, hd.k, C3, 0.0f, ek, Dh);
  Gemm(false, false, K, Dh, hd.keys, 1.0f, f, max_len, hd.v, C3, 0.0f, fv, Dh);
  Gemm(false, true, T, K, Dh, scale, hd.q, C3, ek, Dh, 0.0f, s, K);
}

}  // namespace

void LinformerForward(float* out, float* lse, const float* qkv, const float* e, const float* f, int64_t K,
                      int64_t max_len, int64_t B, int64_t T, int64_t C, int64_t H, int threads, float dropout,
                      uint64_t dropout_seed, const int32_t* key_lengths) {
  UseSingleThreadedBlas();
  const int64_t Dh = C / H, C3 = 3 * C;
  const float scale = 1.0f / std::sqrt(static_cast<float>(Dh)), keep_scale = 1.0f / (1.0f - dropout);
  ParallelFor(B * H, threads, [&](int64_t bh) {
    const Head hd = MakeHead(qkv, bh, T, C, H, key_lengths);
    std::vector<float> ek(Sz(K * Dh)), fv(Sz(K * Dh)), p(Sz(T * K));
    LinformerScores(hd, e, f, K, max_len, T, Dh, C3, scale, ek.data(), fv.data(), p.data());
    for (int64_t i = 0; i < T; ++i) {
      float* row = p.data() + i * K;
      const float max = MaxOf(row, K);
      ExpShiftedInPlace(row, K, max);
      const float sum = static_cast<float>(SumAsDouble(row, K));
      const float inv = 1.0f / sum;
      for (int64_t r = 0; r < K; ++r) row[r] *= inv;
      if (dropout > 0.0f) {
        for (int64_t r = 0; r < K; ++r) row[r] *= LinformerDropout(dropout, keep_scale, dropout_seed, bh, T, K, i, r);
      }
      lse[bh * T + i] = max + std::log(sum);
    }
    // out [T, Dh] (row stride C) = P · fv
    Gemm(false, false, T, Dh, K, 1.0f, p.data(), K, fv.data(), Dh, 0.0f, out + hd.b * T * C + hd.h * Dh, C);
  });
}

void LinformerBackward(float* dqkv, float* de, float* df, const float* dout, const float* out, const float* lse,
                       const float* qkv, const float* e, const float* f, int64_t K, int64_t max_len, int64_t B,
                       int64_t T, int64_t C, int64_t H, int threads, float dropout, uint64_t dropout_seed,
                       const int32_t* key_lengths) {
  UseSingleThreadedBlas();
  const int64_t Dh = C / H, C3 = 3 * C;
  const float scale = 1.0f / std::sqrt(static_cast<float>(Dh)), keep_scale = 1.0f / (1.0f - dropout);
  // d(E·k) and d(F·v) of every (b, h), [B·H, K, Dh], reduced into dE and dF in (b, h) order below.
  std::vector<float> dek(Sz(B * H * K * Dh)), dfv(Sz(B * H * K * Dh));
  ParallelFor(B * H, threads, [&](int64_t bh) {
    const Head hd = MakeHead(qkv, bh, T, C, H, key_lengths);
    std::vector<float> ek(Sz(K * Dh)), fv(Sz(K * Dh)), p(Sz(T * K)), ds(Sz(T * K));
    LinformerScores(hd, e, f, K, max_len, T, Dh, C3, scale, ek.data(), fv.data(), p.data());
    const float* dout_h = dout + hd.b * T * C + hd.h * Dh;  // [T, Dh], row stride C
    const float* out_h = out + hd.b * T * C + hd.h * Dh;
    Gemm(false, true, T, K, Dh, 1.0f, dout_h, C, fv.data(), Dh, 0.0f, ds.data(), K);  // dP = dO·fvᵀ
    for (int64_t i = 0; i < T; ++i) {
      float delta = 0.0f;  // do_i·o_i
      for (int64_t d = 0; d < Dh; ++d) delta += dout_h[i * C + d] * out_h[i * C + d];
      float* p_row = p.data() + i * K;
      float* ds_row = ds.data() + i * K;
      ExpShiftedInPlace(p_row, K, lse[bh * T + i]);
      for (int64_t r = 0; r < K; ++r) {
        const float m =
            dropout > 0.0f ? LinformerDropout(dropout, keep_scale, dropout_seed, bh, T, K, i, r) : 1.0f;
        ds_row[r] = p_row[r] * (m * ds_row[r] - delta) * scale;
        p_row[r] *= m;
      }
    }
    float* dbase = dqkv + hd.b * T * C3;
    float* dq = dbase + hd.h * Dh;  // [T, Dh] each, row stride 3C
    float* dk = dbase + C + hd.h * Dh;
    float* dv = dbase + 2 * C + hd.h * Dh;
    float* dek_h = dek.data() + bh * K * Dh;  // [K, Dh]
    float* dfv_h = dfv.data() + bh * K * Dh;
    Gemm(false, false, T, Dh, K, 1.0f, ds.data(), K, ek.data(), Dh, 0.0f, dq, C3);    // dq = dS·ek
    Gemm(true, false, K, Dh, T, 1.0f, ds.data(), K, hd.q, C3, 0.0f, dek_h, Dh);       // dek = dSᵀ·q
    Gemm(true, false, K, Dh, T, 1.0f, p.data(), K, dout_h, C, 0.0f, dfv_h, Dh);       // dfv = (P∘M)ᵀ·dO
    Gemm(true, false, hd.keys, Dh, K, 1.0f, e, max_len, dek_h, Dh, 0.0f, dk, C3);      // dk[:n] = E[:, :n]ᵀ·dek
    Gemm(true, false, hd.keys, Dh, K, 1.0f, f, max_len, dfv_h, Dh, 0.0f, dv, C3);      // dv[:n] = F[:, :n]ᵀ·dfv
    for (int64_t t = hd.keys; t < T; ++t) {
      std::fill(dk + t * C3, dk + t * C3 + Dh, 0.0f);
      std::fill(dv + t * C3, dv + t * C3 + Dh, 0.0f);
    }
  });
  // dE[:, block] += dek_bh · k_bh[block]ᵀ over (b, h) in order (likewise dF with v): blocks of key positions in
  // parallel, each summing the pairs in the same order for any thread count.
  const int64_t blocks = (T + kKeyBlock - 1) / kKeyBlock;
  ParallelFor(blocks, threads, [&](int64_t block) {
    const int64_t j0 = block * kKeyBlock;
    for (int64_t bh = 0; bh < B * H; ++bh) {
      const Head hd = MakeHead(qkv, bh, T, C, H, key_lengths);
      const int64_t cols = std::min(j0 + kKeyBlock, hd.keys) - j0;
      if (cols <= 0) continue;
      Gemm(false, true, K, cols, Dh, 1.0f, dek.data() + bh * K * Dh, Dh, hd.k + j0 * C3, C3, 1.0f, de + j0,
           max_len);
      Gemm(false, true, K, cols, Dh, 1.0f, dfv.data() + bh * K * Dh, Dh, hd.v + j0 * C3, C3, 1.0f, df + j0,
           max_len);
    }
  });
}

// ---- kernel attention -----------------------------------------------------------------------------------------------

namespace {

float Elu1(float x) { return x > 0.0f ? x + 1.0f : std::exp(x); }

std::vector<uint8_t> KeyPadding(int64_t keys, int64_t T) {
  std::vector<uint8_t> padding(Sz(T), 0);
  std::fill(padding.begin() + keys, padding.end(), 1);
  return padding;
}

// The features of one head as the forward pass made them: φq [T, M] (performer: per-row stabilized), φk [T, M]
// (padded rows 0; performer: stabilized by key_max[chunk], the running max through that chunk when causal, the
// max over every visible key otherwise), and x̃ = √s·x of q and k (performer, [T, Dh]).
struct Features {
  std::vector<float> phi_q, phi_k, xq, xk, key_max;
};

void MakeFeatures(const KernelFeatureMap& map, const Head& hd, int64_t T, int64_t Dh, int64_t C3, bool causal,
                  Features* ft) {
  const int64_t M = map.width(Dh), chunks = (T + kKernelChunk - 1) / kKernelChunk;
  const StridedView q{hd.q, T, Dh, C3}, k{hd.k, T, Dh, C3};
  KernelScratch scratch;
  ft->phi_q.resize(Sz(T * M));
  ft->phi_k.resize(Sz(T * M));
  KernelExponents(map, q, 0, T, /*key=*/false, &scratch, ft->phi_q.data());
  KernelExponents(map, k, 0, T, /*key=*/true, &scratch, ft->phi_k.data());
  ft->key_max.assign(Sz(chunks), 0.0f);
  if (map.type == AttentionKindType::kLinear) {
    for (float& x : ft->phi_q) x = Elu1(x);
    for (int64_t j = 0; j < T; ++j) {
      float* row = ft->phi_k.data() + j * M;
      for (int64_t m = 0; m < M; ++m) row[m] = j < hd.keys ? Elu1(row[m]) : 0.0f;
    }
    return;
  }
  const float root = std::sqrt(map.scale);
  ft->xq.resize(Sz(T * Dh));
  ft->xk.resize(Sz(T * Dh));
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t d = 0; d < Dh; ++d) {
      ft->xq[Sz(t * Dh + d)] = root * hd.q[t * C3 + d];
      ft->xk[Sz(t * Dh + d)] = root * hd.k[t * C3 + d];
    }
  }
  for (int64_t i = 0; i < T; ++i) {
    float* row = ft->phi_q.data() + i * M;
    ExpShiftedInPlace(row, M, MaxOf(row, M));
  }
  float running = kNegInf;
  for (int64_t c = 0; c < chunks; ++c) {  // causal: the running max through chunk c
    const int64_t end = std::min((c + 1) * kKernelChunk, hd.keys);
    for (int64_t j = c * kKernelChunk; j < end; ++j) running = std::max(running, MaxOf(ft->phi_k.data() + j * M, M));
    ft->key_max[Sz(c)] = running;
  }
  if (!causal) std::fill(ft->key_max.begin(), ft->key_max.end(), running);
  for (int64_t j = 0; j < T; ++j) {
    float* row = ft->phi_k.data() + j * M;
    if (j >= hd.keys) {
      std::fill_n(row, M, 0.0f);
    } else {
      ExpShiftedInPlace(row, M, ft->key_max[Sz(j / kKernelChunk)]);
    }
  }
}

// g_i = do_i / den_i and e_i = -(do_i·o_i) / den_i for rows [r0, r0 + n) (0 where den_i <= 0: zero output).
void RowGradients(const float* dout_h, const float* out_h, int64_t C, int64_t Dh, int64_t r0, int64_t n,
                  const float* den, float* g, float* e) {
  for (int64_t r = 0; r < n; ++r) {
    const float* do_i = dout_h + (r0 + r) * C;
    const float* o_i = out_h + (r0 + r) * C;
    float* g_i = g + r * Dh;
    if (!(den[r] > 0.0f)) {
      std::fill_n(g_i, Dh, 0.0f);
      e[r] = 0.0f;
      continue;
    }
    const float inv = 1.0f / den[r];
    float dot = 0.0f;
    for (int64_t d = 0; d < Dh; ++d) {
      g_i[d] = do_i[d] * inv;
      dot += do_i[d] * o_i[d];
    }
    e[r] = -dot * inv;
  }
}

// den_r = φq_r·z for n rows.
void Denominators(const float* phi_q, const float* z, int64_t n, int64_t M, float* den) {
  for (int64_t r = 0; r < n; ++r) {
    double d = 0.0;
    for (int64_t m = 0; m < M; ++m) d += static_cast<double>(phi_q[r * M + m]) * z[m];
    den[r] = static_cast<float>(d);
  }
}

// out [M] += Σ_r rows[r]·w[r] over n rows of width M.
void AddWeightedRows(const float* rows, const float* w, int64_t n, int64_t M, float* out) {
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t m = 0; m < M; ++m) out[m] += rows[r * M + m] * w[r];
  }
}

// dx through φ into a [T, Dh] block of stride C3: linear dφ·φ'(x); performer √s·(Wᵀ(dφ∘φ) - [key] x̃·Σ(dφ∘φ)).
void FeatureBackward(const KernelFeatureMap& map, const float* x, const float* xt, const float* phi, float* dphi,
                     int64_t T, int64_t Dh, int64_t C3, bool key, float* dx) {
  const int64_t M = map.width(Dh);
  if (map.type == AttentionKindType::kLinear) {
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t d = 0; d < Dh; ++d) {
        const float xv = x[t * C3 + d];
        dx[t * C3 + d] = dphi[t * M + d] * (xv > 0.0f ? 1.0f : phi[t * M + d]);
      }
    }
    return;
  }
  for (int64_t i = 0; i < T * M; ++i) dphi[i] *= phi[i];  // u = dφ∘φ
  const float root = std::sqrt(map.scale);
  Gemm(false, false, T, Dh, M, root, dphi, M, map.features->data(), Dh, 0.0f, dx, C3);
  if (!key) return;
  for (int64_t t = 0; t < T; ++t) {
    const float total = static_cast<float>(SumAsDouble(dphi + t * M, M));
    for (int64_t d = 0; d < Dh; ++d) dx[t * C3 + d] -= root * xt[t * Dh + d] * total;
  }
}

}  // namespace

void FeatureMapAttentionForward(float* out, const float* qkv, const KernelFeatureMap& map, int64_t B, int64_t T,
                                int64_t C, int64_t H, int threads, bool causal, const int32_t* key_lengths) {
  const int64_t Dh = C / H, C3 = 3 * C;
  ParallelFor(B * H, threads, [&](int64_t bh) {
    const Head hd = MakeHead(qkv, bh, T, C, H, key_lengths);
    const std::vector<uint8_t> padding = KeyPadding(hd.keys, T);
    thread_local KernelScratch scratch;
    KernelAttendHead(map, {hd.q, T, Dh, C3}, {hd.k, T, Dh, C3}, {hd.v, T, Dh, C3}, causal, padding, &scratch,
                     out + hd.b * T * C + hd.h * Dh, C);
  });
}

void FeatureMapAttentionBackward(float* dqkv, const float* dout, const float* out, const float* qkv,
                                 const KernelFeatureMap& map, int64_t B, int64_t T, int64_t C, int64_t H,
                                 int threads, bool causal, const int32_t* key_lengths) {
  UseSingleThreadedBlas();
  const int64_t Dh = C / H, C3 = 3 * C, M = map.width(Dh), chunk = kKernelChunk;
  const int64_t chunks = (T + chunk - 1) / chunk;
  ParallelFor(B * H, threads, [&](int64_t bh) {
    const Head hd = MakeHead(qkv, bh, T, C, H, key_lengths);
    Features ft;
    MakeFeatures(map, hd, T, Dh, C3, causal, &ft);
    const float* dout_h = dout + hd.b * T * C + hd.h * Dh;  // [T, Dh], row stride C
    const float* out_h = out + hd.b * T * C + hd.h * Dh;
    float* dbase = dqkv + hd.b * T * C3;
    float* dq = dbase + hd.h * Dh;  // [T, Dh] each, row stride 3C
    float* dk = dbase + C + hd.h * Dh;
    float* dv = dbase + 2 * C + hd.h * Dh;
    const float* pq = ft.phi_q.data();
    const float* pk = ft.phi_k.data();
    std::vector<float> g(Sz(T * Dh)), e(Sz(T)), den(Sz(T));
    std::vector<float> dphi_q(Sz(T * M)), dphi_k(Sz(T * M));
    std::vector<float> state(Sz(M * Dh), 0.0f), z(Sz(M), 0.0f);  // S = Σ φk vᵀ [M, Dh], z = Σ φk [M]
    if (!causal) {
      Gemm(true, false, M, Dh, T, 1.0f, pk, M, hd.v, C3, 0.0f, state.data(), Dh);
      const std::vector<float> ones(Sz(T), 1.0f);
      AddWeightedRows(pk, ones.data(), T, M, z.data());
      Denominators(pq, z.data(), T, M, den.data());
      RowGradients(dout_h, out_h, C, Dh, 0, T, den.data(), g.data(), e.data());
      // dφq = g·Sᵀ + e zᵀ;  dS = φqᵀ·g, dz = φqᵀ·e;  dφk = V·dSᵀ + 1 dzᵀ;  dV = φk·dS
      Gemm(false, true, T, M, Dh, 1.0f, g.data(), Dh, state.data(), Dh, 0.0f, dphi_q.data(), M);
      for (int64_t i = 0; i < T; ++i) {
        for (int64_t m = 0; m < M; ++m) dphi_q[Sz(i * M + m)] += e[Sz(i)] * z[Sz(m)];
      }
      std::vector<float> dstate(Sz(M * Dh)), dz(Sz(M), 0.0f);
      Gemm(true, false, M, Dh, T, 1.0f, pq, M, g.data(), Dh, 0.0f, dstate.data(), Dh);
      AddWeightedRows(pq, e.data(), T, M, dz.data());
      Gemm(false, true, T, M, Dh, 1.0f, hd.v, C3, dstate.data(), Dh, 0.0f, dphi_k.data(), M);
      for (int64_t j = 0; j < T; ++j) {
        for (int64_t m = 0; m < M; ++m) dphi_k[Sz(j * M + m)] = j < hd.keys ? dphi_k[Sz(j * M + m)] + dz[Sz(m)] : 0.0f;
      }
      Gemm(false, false, T, Dh, M, 1.0f, pk, M, dstate.data(), Dh, 0.0f, dv, C3);
    } else {
      // Forward sweep: each chunk's starting state (S, z) in its own key scale, and every row's denominator.
      std::vector<float> states(Sz(chunks * M * Dh)), zs(Sz(chunks * M));
      std::vector<float> a(Sz(chunk * chunk));
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t r0 = c * chunk, n = std::min(chunk, T - r0);
        if (c > 0 && ft.key_max[Sz(c)] > ft.key_max[Sz(c - 1)]) {
          const float factor = std::exp(ft.key_max[Sz(c - 1)] - ft.key_max[Sz(c)]);
          for (float& x : state) x *= factor;
          for (float& x : z) x *= factor;
        }
        std::copy(state.begin(), state.end(), states.begin() + c * M * Dh);
        std::copy(z.begin(), z.end(), zs.begin() + c * M);
        Denominators(pq + r0 * M, z.data(), n, M, den.data() + r0);
        Gemm(false, true, n, n, M, 1.0f, pq + r0 * M, M, pk + r0 * M, M, 0.0f, a.data(), n);
        for (int64_t r = 0; r < n; ++r) {
          double sum = 0.0;
          for (int64_t j = 0; j <= r; ++j) sum += a[Sz(r * n + j)];
          den[Sz(r0 + r)] += static_cast<float>(sum);
        }
        Gemm(true, false, M, Dh, n, 1.0f, pk + r0 * M, M, hd.v + r0 * C3, C3, 1.0f, state.data(), Dh);
        const std::vector<float> ones(Sz(n), 1.0f);
        AddWeightedRows(pk + r0 * M, ones.data(), n, M, z.data());
      }
      RowGradients(dout_h, out_h, C, Dh, 0, T, den.data(), g.data(), e.data());
      // Reverse sweep. R = Σ φq_i g_iᵀ and r = Σ e_i φq_i over the later chunks' queries, in this chunk's key scale.
      std::vector<float> R(Sz(M * Dh), 0.0f), rvec(Sz(M), 0.0f), da(Sz(chunk * chunk));
      for (int64_t c = chunks - 1; c >= 0; --c) {
        const int64_t r0 = c * chunk, n = std::min(chunk, T - r0);
        const float* pq_c = pq + r0 * M;
        const float* pk_c = pk + r0 * M;
        const float* g_c = g.data() + r0 * Dh;
        const float* e_c = e.data() + r0;
        const float* v_c = hd.v + r0 * C3;
        // A = tril(φq_c·φk_cᵀ);  dA = tril(g_c·V_cᵀ + e_c 1ᵀ)
        Gemm(false, true, n, n, M, 1.0f, pq_c, M, pk_c, M, 0.0f, a.data(), n);
        Gemm(false, true, n, n, Dh, 1.0f, g_c, Dh, v_c, C3, 0.0f, da.data(), n);
        for (int64_t r = 0; r < n; ++r) {
          for (int64_t j = 0; j < n; ++j) {
            if (j > r) {
              a[Sz(r * n + j)] = 0.0f;
              da[Sz(r * n + j)] = 0.0f;
            } else {
              da[Sz(r * n + j)] += e_c[r];
            }
          }
        }
        // dφq_c = g_c·S_cᵀ + e_c z_cᵀ + dA·φk_c
        float* dpq_c = dphi_q.data() + r0 * M;
        Gemm(false, true, n, M, Dh, 1.0f, g_c, Dh, states.data() + c * M * Dh, Dh, 0.0f, dpq_c, M);
        const float* z_c = zs.data() + c * M;
        for (int64_t r = 0; r < n; ++r) {
          for (int64_t m = 0; m < M; ++m) dpq_c[r * M + m] += e_c[r] * z_c[m];
        }
        Gemm(false, false, n, M, n, 1.0f, da.data(), n, pk_c, M, 1.0f, dpq_c, M);
        // dφk_c = V_c·Rᵀ + 1 rᵀ + dAᵀ·φq_c (padded keys: 0)
        float* dpk_c = dphi_k.data() + r0 * M;
        Gemm(false, true, n, M, Dh, 1.0f, v_c, C3, R.data(), Dh, 0.0f, dpk_c, M);
        Gemm(true, false, n, M, n, 1.0f, da.data(), n, pq_c, M, 1.0f, dpk_c, M);
        for (int64_t j = 0; j < n; ++j) {
          float* row = dpk_c + j * M;
          if (r0 + j >= hd.keys) {
            std::fill_n(row, M, 0.0f);
          } else {
            for (int64_t m = 0; m < M; ++m) row[m] += rvec[Sz(m)];
          }
        }
        // dV_c = φk_c·R + Aᵀ·g_c
        Gemm(false, false, n, Dh, M, 1.0f, pk_c, M, R.data(), Dh, 0.0f, dv + r0 * C3, C3);
        Gemm(true, false, n, Dh, n, 1.0f, a.data(), n, g_c, Dh, 1.0f, dv + r0 * C3, C3);
        if (c == 0) break;
        // Fold this chunk's queries in, then move to the previous chunk's key scale.
        Gemm(true, false, M, Dh, n, 1.0f, pq_c, M, g_c, Dh, 1.0f, R.data(), Dh);
        AddWeightedRows(pq_c, e_c, n, M, rvec.data());
        if (ft.key_max[Sz(c - 1)] < ft.key_max[Sz(c)]) {
          const float factor = std::exp(ft.key_max[Sz(c - 1)] - ft.key_max[Sz(c)]);
          for (float& x : R) x *= factor;
          for (float& x : rvec) x *= factor;
        }
      }
    }
    FeatureBackward(map, hd.q, ft.xq.data(), pq, dphi_q.data(), T, Dh, C3, /*key=*/false, dq);
    FeatureBackward(map, hd.k, ft.xk.data(), pk, dphi_k.data(), T, Dh, C3, /*key=*/true, dk);
  });
}

}  // namespace tokvec::training
