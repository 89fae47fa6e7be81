#include "training/kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu_features.h"
#include "training/dropout_mask.h"
#include "training/vector_math.h"

namespace tokvec::training {
namespace {

// Every split below is fixed, so the split (and therefore every rounding) is the same for any thread count.
// Rows per block of the row-parallel element-wise kernels.
constexpr int64_t kRowBlock = 64;
// Rows per sgemm of a linear layer (and of its input gradient), and output columns per sgemm of its weight
// gradient. Each call re-packs the other operand, so a block amortizes one packing of the weight over 256 rows:
// 64 left OpenBLAS's packing copies at 12% of a `fit` step (6-layer d384 GPT-2, perf).
constexpr int64_t kGemmRows = 256;
constexpr int64_t kGemmCols = 256;
// Rows of logits made at once by the LM head ([kHeadRows, V] floats: 103 MB for GPT-2's V = 50257); within them,
// vocabulary columns per sgemm of the logits, rows per sgemm of dx and vocabulary rows per sgemm of dwte. The
// logits are split by vocabulary so the tied table (77 MB for GPT-2) is packed once per kHeadRows rows.
constexpr int64_t kHeadRows = 512;
constexpr int64_t kHeadVocabBlock = 2048;
constexpr int64_t kHeadDxRows = 256;
constexpr int64_t kHeadGradVocab = 1024;

int64_t Blocks(int64_t n, int64_t block) { return (n + block - 1) / block; }

constexpr float kSqrt2OverPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);  // √(2/π)

// GPT-2's tanh GELU argument u = √(2/π)(x + 0.044715x³).
[[gnu::always_inline]] inline float GeluTanhU(float x) {
  TOKVEC_NO_CONTRACTION
  return kSqrt2OverPi * (x + 0.044715f * x * x * x);
}

}  // namespace

// ---- token + learned position tables ----------------------------------------------------------------------------

void EmbeddingForward(float* out, const int32_t* ids, const float* wte, const float* wpe, int64_t B, int64_t T,
                      int64_t C) {
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      float* o = out + (b * T + t) * C;                   // [C]
      const float* tok = wte + int64_t{ids[b * T + t]} * C;  // [C]
      const float* pos = wpe + t * C;                     // [C]
      for (int64_t c = 0; c < C; ++c) o[c] = tok[c] + pos[c];
    }
  }
}

void EmbeddingBackward(float* dwte, float* dwpe, const float* dout, const int32_t* ids, int64_t B, int64_t T,
                       int64_t C) {
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      const float* d = dout + (b * T + t) * C;            // [C]
      float* dtok = dwte + int64_t{ids[b * T + t]} * C;   // [C]
      float* dpos = dwpe + t * C;                         // [C]
      for (int64_t c = 0; c < C; ++c) {
        dtok[c] += d[c];
        dpos[c] += d[c];
      }
    }
  }
}

// ---- LayerNorm ----------------------------------------------------------------------------------------------------

void LayerNormForward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                      const float* bias, int64_t N, int64_t C, float eps, int threads) {
  ParallelFor(Blocks(N, kRowBlock), threads, [&](int64_t block) {
    const int64_t end = std::min(N, (block + 1) * kRowBlock);
    for (int64_t i = block * kRowBlock; i < end; ++i) {
      const float* x = inp + i * C;  // [C]
      float m = 0.0f;
      for (int64_t c = 0; c < C; ++c) m += x[c];
      m /= static_cast<float>(C);
      float v = 0.0f;
      for (int64_t c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
      v /= static_cast<float>(C);
      const float s = 1.0f / std::sqrt(v + eps);
      float* o = out + i * C;  // [C]
      for (int64_t c = 0; c < C; ++c) o[c] = (x[c] - m) * s * weight[c] + bias[c];
      mean[i] = m;
      rstd[i] = s;
    }
  });
}

void LayerNormBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                       const float* weight, const float* mean, const float* rstd, int64_t N, int64_t C,
                       int threads) {
  const int64_t blocks = Blocks(N, kRowBlock);
  std::vector<float> partial(static_cast<size_t>(blocks * 2 * C), 0.0f);  // [blocks, 2, C]: dweight, dbias
  ParallelFor(blocks, threads, [&](int64_t block) {
    float* pw = partial.data() + block * 2 * C;  // [C]
    float* pb = pw + C;                          // [C]
    const int64_t end = std::min(N, (block + 1) * kRowBlock);
    for (int64_t i = block * kRowBlock; i < end; ++i) {
      const float* x = inp + i * C;    // [C]
      const float* dy = dout + i * C;  // [C]
      float* dx = dinp + i * C;        // [C]
      const float m = mean[i], s = rstd[i];
      float g_mean = 0.0f, gn_mean = 0.0f;
      for (int64_t c = 0; c < C; ++c) {
        const float n = (x[c] - m) * s;
        const float g = dy[c] * weight[c];
        g_mean += g;
        gn_mean += g * n;
      }
      g_mean /= static_cast<float>(C);
      gn_mean /= static_cast<float>(C);
      for (int64_t c = 0; c < C; ++c) {
        const float n = (x[c] - m) * s;
        const float g = dy[c] * weight[c];
        pb[c] += dy[c];
        pw[c] += n * dy[c];
        dx[c] += s * (g - g_mean - n * gn_mean);
      }
    }
  });
  for (int64_t block = 0; block < blocks; ++block) {  // block order: the same sum for any thread count
    const float* pw = partial.data() + block * 2 * C;
    for (int64_t c = 0; c < C; ++c) {
      dweight[c] += pw[c];
      dbias[c] += pw[C + c];
    }
  }
}

// ---- linear (Conv1D [in, out]) ------------------------------------------------------------------------------------

void LinearForward(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t IC,
                   int64_t OC, int threads) {
  UseSingleThreadedBlas();
  ParallelFor(Blocks(N, kGemmRows), threads, [&](int64_t block) {
    const int64_t row0 = block * kGemmRows, rows = std::min(kGemmRows, N - row0);
    float* y = out + row0 * OC;  // [rows, OC]
    // y = x_block [rows, IC] · W [IC, OC]
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows), static_cast<blasint>(OC),
                static_cast<blasint>(IC), 1.0f, inp + row0 * IC, static_cast<blasint>(IC), weight,
                static_cast<blasint>(OC), 0.0f, y, static_cast<blasint>(OC));
    if (bias != nullptr) {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t o = 0; o < OC; ++o) y[r * OC + o] += bias[o];
      }
    }
  });
}

void LinearBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                    const float* weight, int64_t N, int64_t IC, int64_t OC, int threads) {
  UseSingleThreadedBlas();
  const int64_t row_blocks = dinp != nullptr ? Blocks(N, kGemmRows) : 0;
  const int64_t col_blocks = Blocks(OC, kGemmCols);
  // Tasks [0, row_blocks): dinp rows; then [row_blocks, row_blocks + col_blocks): columns of dweight and dbias.
  ParallelFor(row_blocks + col_blocks, threads, [&](int64_t task) {
    if (task < row_blocks) {
      const int64_t row0 = task * kGemmRows, rows = std::min(kGemmRows, N - row0);
      // dx_block [rows, IC] = dy_block [rows, OC] · Wᵀ [OC, IC]
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows), static_cast<blasint>(IC),
                  static_cast<blasint>(OC), 1.0f, dout + row0 * OC, static_cast<blasint>(OC), weight,
                  static_cast<blasint>(OC), 0.0f, dinp + row0 * IC, static_cast<blasint>(IC));
      return;
    }
    const int64_t col0 = (task - row_blocks) * kGemmCols, cols = std::min(kGemmCols, OC - col0);
    // dW[:, cols] [IC, cols] += xᵀ [IC, N] · dy[:, cols] [N, cols]
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(IC), static_cast<blasint>(cols),
                static_cast<blasint>(N), 1.0f, inp, static_cast<blasint>(IC), dout + col0,
                static_cast<blasint>(OC), 1.0f, dweight + col0, static_cast<blasint>(OC));
    if (dbias != nullptr) {
      // dbias[o] += Σ_i dy[i, o], each column's sum in row order (the bits of a column-by-column loop), walked row
      // by row so the reads are contiguous and the columns' sums vectorize: column by column, each read was a
      // stride of OC floats, 4% of a `fit` step (perf, 6-layer d384 GPT-2, 2 threads).
      float sums[kGemmCols] = {};
      for (int64_t i = 0; i < N; ++i) {
        const float* row = dout + i * OC + col0;
        for (int64_t o = 0; o < cols; ++o) sums[o] += row[o];
      }
      for (int64_t o = 0; o < cols; ++o) dbias[col0 + o] += sums[o];
    }
  });
}

// ---- activations --------------------------------------------------------------------------------------------------

namespace {

// GPT-2's tanh GELU as x·σ(2u) over [begin, end), and its derivative times dout: gelu(x) = 0.5x(1 + tanh u) =
// x·σ(2u), u = √(2/π)(x + 0.044715x³), so with s = σ(2u): d/dx = s + 2x·s(1 - s)·u', u' = √(2/π)(1 + 3·0.044715x²).
[[gnu::always_inline]] inline void GeluTanhForward(float* out, const float* inp, int64_t begin,
                                                   int64_t end) {
  TOKVEC_NO_CONTRACTION
  for (int64_t i = begin; i < end; ++i) out[i] = inp[i] / (1.0f + VectorExp(-2.0f * GeluTanhU(inp[i])));
}

[[gnu::always_inline]] inline void GeluTanhBackward(float* dinp, const float* inp, const float* dout,
                                                    int64_t begin, int64_t end) {
  TOKVEC_NO_CONTRACTION
  for (int64_t i = begin; i < end; ++i) {
    const float x = inp[i];
    const float s = 1.0f / (1.0f + VectorExp(-2.0f * GeluTanhU(x)));
    const float du = kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * x * x);
    dinp[i] = (s + 2.0f * x * s * (1.0f - s) * du) * dout[i];
  }
}

}  // namespace

namespace kernels_internal {

// Baseline and AVX-512 copies with the same bits, as SoftmaxRows*: GELU was ~3.4% of a `fit` step (perf).
void GeluTanhForwardPortable(float* out, const float* inp, int64_t begin, int64_t end) {
  GeluTanhForward(out, inp, begin, end);
}

TOKVEC_AVX512_SAME_BITS void GeluTanhForwardAvx512(float* out, const float* inp, int64_t begin, int64_t end) {
  TOKVEC_NO_CONTRACTION
  GeluTanhForward(out, inp, begin, end);
}

void GeluTanhBackwardPortable(float* dinp, const float* inp, const float* dout, int64_t begin, int64_t end) {
  GeluTanhBackward(dinp, inp, dout, begin, end);
}

TOKVEC_AVX512_SAME_BITS void GeluTanhBackwardAvx512(float* dinp, const float* inp, const float* dout, int64_t begin,
                                                    int64_t end) {
  TOKVEC_NO_CONTRACTION
  GeluTanhBackward(dinp, inp, dout, begin, end);
}

}  // namespace kernels_internal

void ActivationForward(Activation activation, float* out, const float* inp, int64_t n, int threads) {
  if (activation == Activation::kGeluTanh) {  // x·σ(2u), vectorized
    constexpr int64_t kChunk = 4096;
    const auto gelu =
        Avx512Available() ? kernels_internal::GeluTanhForwardAvx512 : kernels_internal::GeluTanhForwardPortable;
    ParallelFor(Blocks(n, kChunk), threads, [&](int64_t block) {
      gelu(out, inp, block * kChunk, std::min(n, (block + 1) * kChunk));
    });
    return;
  }
  std::copy(inp, inp + n, out);
  ApplyActivation(activation, std::span<float>(out, static_cast<size_t>(n)), threads);
}

void ActivationBackward(Activation activation, float* dinp, const float* inp, const float* dout, int64_t n,
                        int threads) {
  constexpr int64_t kChunk = 4096;
  const auto gelu =
      Avx512Available() ? kernels_internal::GeluTanhBackwardAvx512 : kernels_internal::GeluTanhBackwardPortable;
  ParallelFor(Blocks(n, kChunk), threads, [&](int64_t block) {
    const int64_t end = std::min(n, (block + 1) * kChunk);
    if (activation == Activation::kGeluTanh) {
      gelu(dinp, inp, dout, block * kChunk, end);
      return;
    }
    for (int64_t i = block * kChunk; i < end; ++i) {
      const float x = inp[i];
      float grad = 0.0f;
      switch (activation) {
        case Activation::kRelu:
          grad = x > 0.0f ? 1.0f : 0.0f;
          break;
        case Activation::kGeluExact: {
          // d/dx x·Φ(x) = Φ(x) + x·φ(x)
          const float cdf = 0.5f * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2)));
          const float pdf = std::exp(-0.5f * x * x) * static_cast<float>(0.5 * M_2_SQRTPI * M_SQRT1_2);
          grad = cdf + x * pdf;
          break;
        }
        case Activation::kGeluTanh:
          break;  // below, vectorized
      }
      dinp[i] = grad * dout[i];
    }
  });
}

// ---- dropout ------------------------------------------------------------------------------------------------------

float DropoutUniform(uint64_t seed, uint64_t index) { return InlineDropoutUniform(seed, index); }

uint64_t DropoutSeed(uint64_t base, uint64_t a, uint64_t b) {
  return Mix64(Mix64(base + (a + 1) * 0x9E3779B97F4A7C15ULL) + (b + 1) * 0xC2B2AE3D27D4EB4FULL);
}

void DropoutForward(float* out, const float* inp, int64_t n, float p, uint64_t seed) {
  const float scale = 1.0f / (1.0f - p);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = DropoutUniform(seed, static_cast<uint64_t>(i)) >= p ? inp[i] * scale : 0.0f;
  }
}

void DropoutBackward(float* dinp, const float* dout, int64_t n, float p, uint64_t seed) {
  DropoutForward(dinp, dout, n, p, seed);  // the same mask and scale
}

// ---- RoPE on q and k, the residual add ------------------------------------------------------------------------------

void RotaryQK(float* qkv, int64_t B, int64_t T, int64_t C, int64_t H, const RotaryOptions& options, bool inverse,
              int threads) {
  const int64_t Dh = C / H, half = Dh / 2, C3 = 3 * C;
  // cos and sin of pos·θ_i, θ_i = base^(-2i/Dh), per position and pair: [T, half] each.
  std::vector<double> cosines(static_cast<size_t>(T * half)), sines(static_cast<size_t>(T * half));
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      const double theta = std::pow(static_cast<double>(options.base), -2.0 * i / Dh);
      cosines[static_cast<size_t>(t * half + i)] = std::cos(static_cast<double>(t) * theta);
      sines[static_cast<size_t>(t * half + i)] = std::sin(static_cast<double>(t) * theta);
    }
  }
  const bool interleaved = options.pairing == RotaryPairing::kInterleaved;
  const double sign = inverse ? -1.0 : 1.0;
  ParallelFor(Blocks(B * T, kRowBlock), threads, [&](int64_t block) {
    const int64_t end = std::min(B * T, (block + 1) * kRowBlock);
    for (int64_t n = block * kRowBlock; n < end; ++n) {
      const double* c = cosines.data() + (n % T) * half;  // [half]
      const double* s = sines.data() + (n % T) * half;    // [half]
      for (int64_t part = 0; part < 2; ++part) {          // q, then k
        for (int64_t h = 0; h < H; ++h) {
          float* x = qkv + n * C3 + part * C + h * Dh;  // [Dh]
          for (int64_t i = 0; i < half; ++i) {
            const int64_t ia = interleaved ? 2 * i : i, ib = interleaved ? 2 * i + 1 : i + half;
            const double a = x[ia], b = x[ib], sn = sign * s[i];
            // (a, b) -> (a cos - b sin, a sin + b cos), with sin negated for the inverse
            x[ia] = static_cast<float>(a * c[i] - b * sn);
            x[ib] = static_cast<float>(a * sn + b * c[i]);
          }
        }
      }
    }
  });
}

void ResidualForward(float* out, const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// ---- tied LM head + cross-entropy --------------------------------------------------------------------------------

namespace {

// Softmax, loss and dlogits of `rows` rows of logits [rows, V] in place: row_loss[r] = log Σ e^l - l_target, and
// with `backward` dlogits = (softmax - onehot(target)) · grad_scale. A row whose target is kIgnoreIndex gets zeros.
[[gnu::always_inline]] inline void SoftmaxRows(float* logits, int64_t rows, int64_t V, const int32_t* targets,
                                               const float* bias, float grad_scale, bool backward, double* row_loss) {
  TOKVEC_NO_CONTRACTION
  for (int64_t r = 0; r < rows; ++r) {
    float* lr = logits + r * V;  // [V]
    const int32_t target = targets[r];
    if (bias != nullptr) {
      for (int64_t v = 0; v < V; ++v) lr[v] += bias[v];
    }
    if (target == kIgnoreIndex) {
      std::fill(lr, lr + V, 0.0f);  // no gradient from this row
      continue;
    }
    const float logit_target = lr[target];
    const float max = MaxOf(lr, V);
    ExpShiftedInPlace(lr, V, max);  // lr = e^(l - max)
    const double sum = SumAsDouble(lr, V);
    row_loss[r] = std::log(sum) - static_cast<double>(logit_target - max);
    if (!backward) continue;
    const float p_scale = static_cast<float>(1.0 / sum) * grad_scale;
    for (int64_t v = 0; v < V; ++v) lr[v] *= p_scale;
    lr[target] -= grad_scale;
  }
}

}  // namespace

namespace kernels_internal {

// The same loops compiled for the baseline and for AVX-512 (16 lanes instead of 4): element-wise IEEE operations
// and fixed-lane sums (training/vector_math.h), so both give the same bits (TOKVEC_AVX512_SAME_BITS). Why: built
// for the baseline, this pass was 8% of a `fit` step of the 6-layer d384 GPT-2 (V = 50257, 2 threads, perf).
void SoftmaxRowsPortable(float* logits, int64_t rows, int64_t V, const int32_t* targets, const float* bias,
                         float grad_scale, bool backward, double* row_loss) {
  SoftmaxRows(logits, rows, V, targets, bias, grad_scale, backward, row_loss);
}

TOKVEC_AVX512_SAME_BITS void SoftmaxRowsAvx512(float* logits, int64_t rows, int64_t V, const int32_t* targets,
                                               const float* bias, float grad_scale, bool backward, double* row_loss) {
  TOKVEC_NO_CONTRACTION
  SoftmaxRows(logits, rows, V, targets, bias, grad_scale, backward, row_loss);
}

}  // namespace kernels_internal

double CrossEntropyForwardBackward(const float* x, const float* wte, const int32_t* targets, int64_t N, int64_t C,
                                   int64_t V, float grad_scale, float* dx, float* dwte, int64_t* valid,
                                   int threads, const float* bias, float* dbias) {
  UseSingleThreadedBlas();
  std::vector<double> row_loss(static_cast<size_t>(N), 0.0);  // [N]
  const int64_t chunk_rows = std::min(kHeadRows, N);
  std::vector<float> logits(static_cast<size_t>(chunk_rows * V));  // [rows, V], then dlogits in place
  for (int64_t row0 = 0; row0 < N; row0 += kHeadRows) {
    const int64_t rows = std::min(kHeadRows, N - row0);
    // 1. logits [rows, V] = x_chunk [rows, C] · wteᵀ [C, V], one task per block of vocabulary columns.
    ParallelFor(Blocks(V, kHeadVocabBlock), threads, [&](int64_t block) {
      const int64_t v0 = block * kHeadVocabBlock, vn = std::min(kHeadVocabBlock, V - v0);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows), static_cast<blasint>(vn),
                  static_cast<blasint>(C), 1.0f, x + row0 * C, static_cast<blasint>(C), wte + v0 * C,
                  static_cast<blasint>(C), 0.0f, logits.data() + v0, static_cast<blasint>(V));
    });
    // 2. softmax, loss and dlogits (in place), kRowBlock rows per task.
    const auto softmax_rows =
        Avx512Available() ? kernels_internal::SoftmaxRowsAvx512 : kernels_internal::SoftmaxRowsPortable;
    ParallelFor(Blocks(rows, kRowBlock), threads, [&](int64_t block) {
      const int64_t r0 = block * kRowBlock, r1 = std::min(rows, r0 + kRowBlock);
      softmax_rows(logits.data() + r0 * V, r1 - r0, V, targets + row0 + r0, bias, grad_scale, dx != nullptr,
                   row_loss.data() + row0 + r0);
    });
    if (dx == nullptr) continue;
    // 3. dx rows = dlogits · wte, and dwte += dlogitsᵀ · x over blocks of dwte's rows.
    const int64_t row_blocks = Blocks(rows, kHeadDxRows), vocab_blocks = Blocks(V, kHeadGradVocab);
    ParallelFor(row_blocks + vocab_blocks, threads, [&](int64_t task) {
      if (task < row_blocks) {
        const int64_t r0 = task * kHeadDxRows, r = std::min(kHeadDxRows, rows - r0);
        // dx_block [r, C] = dlogits_block [r, V] · wte [V, C]
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(r), static_cast<blasint>(C),
                    static_cast<blasint>(V), 1.0f, logits.data() + r0 * V, static_cast<blasint>(V), wte,
                    static_cast<blasint>(C), 0.0f, dx + (row0 + r0) * C, static_cast<blasint>(C));
        return;
      }
      const int64_t v0 = (task - row_blocks) * kHeadGradVocab, vn = std::min(kHeadGradVocab, V - v0);
      // dwte[v0 .. v0 + vn) [vn, C] += dlogits[:, v0..]ᵀ [vn, rows] · x_chunk [rows, C]
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(vn), static_cast<blasint>(C),
                  static_cast<blasint>(rows), 1.0f, logits.data() + v0, static_cast<blasint>(V), x + row0 * C,
                  static_cast<blasint>(C), 1.0f, dwte + v0 * C, static_cast<blasint>(C));
      if (dbias != nullptr) {  // dbias[v] += Σ_rows dlogits[r, v], rows in order
        for (int64_t r = 0; r < rows; ++r) {
          const float* lr = logits.data() + r * V;
          for (int64_t v = v0; v < v0 + vn; ++v) dbias[v] += lr[v];
        }
      }
    });
  }
  double total = 0.0;
  int64_t count = 0;
  for (int64_t i = 0; i < N; ++i) {
    if (targets[i] == kIgnoreIndex) continue;
    total += row_loss[static_cast<size_t>(i)];
    ++count;
  }
  if (valid != nullptr) *valid = count;
  return total;
}

}  // namespace tokvec::training
