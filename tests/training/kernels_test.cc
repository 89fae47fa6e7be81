// Every backward kernel against a central finite difference of its forward kernel (the naive oracle), and the
// O(T)-memory attention backward also against a naive O(T²) backward that keeps the full softmax matrix.
#include "training/kernels.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/cpu_features.h"

namespace tokvec::training {
namespace {

std::vector<float> Random(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = uniform(rng);
  return v;
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

// Compares analytic[i] with (loss(x + eps e_i) - loss(x - eps e_i)) / 2 eps for up to 48 indices spread over x.
void ExpectGradient(const char* what, std::vector<float>& x, const std::vector<float>& analytic,
                    const std::function<double()>& loss, double eps = 1e-2, double tol = 5e-3) {
  ASSERT_EQ(x.size(), analytic.size()) << what;
  const size_t stride = std::max<size_t>(1, x.size() / 48);
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); i += stride) {
    const float saved = x[i];
    x[i] = saved + static_cast<float>(eps);
    const double plus = loss();
    x[i] = saved - static_cast<float>(eps);
    const double minus = loss();
    x[i] = saved;
    const double fd = (plus - minus) / (2 * eps);
    const double diff = std::abs(fd - analytic[i]) / std::max(1.0, std::abs(fd));
    worst = std::max(worst, diff);
    EXPECT_LE(diff, tol) << what << "[" << i << "]: analytic " << analytic[i] << ", finite difference " << fd;
  }
  ::testing::Test::RecordProperty(what, std::to_string(worst));
}

TEST(KernelsTest, EmbeddingBackwardMatchesFiniteDifference) {
  const int64_t B = 2, T = 3, C = 4, V = 5;
  std::vector<int32_t> ids = {1, 4, 1, 0, 4, 4};
  std::vector<float> wte = Random(V * C, 1), wpe = Random(T * C, 2), r = Random(B * T * C, 3);
  std::vector<float> out(B * T * C), dwte(V * C, 0.0f), dwpe(T * C, 0.0f);
  auto loss = [&] {
    EmbeddingForward(out.data(), ids.data(), wte.data(), wpe.data(), B, T, C);
    return Dot(out, r);
  };
  EmbeddingBackward(dwte.data(), dwpe.data(), r.data(), ids.data(), B, T, C);
  ExpectGradient("dwte", wte, dwte, loss);
  ExpectGradient("dwpe", wpe, dwpe, loss);
}

TEST(KernelsTest, LayerNormBackwardMatchesFiniteDifference) {
  const int64_t N = 70, C = 8;  // 70 rows: two row blocks
  std::vector<float> x = Random(N * C, 4, 2.0f), w = Random(C, 5), b = Random(C, 6), r = Random(N * C, 7);
  for (float& v : w) v += 1.0f;
  std::vector<float> out(N * C), mean(N), rstd(N);
  auto loss = [&] {
    LayerNormForward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, 1e-5f, 2);
    return Dot(out, r);
  };
  loss();
  std::vector<float> dx(N * C, 0.0f), dw(C, 0.0f), db(C, 0.0f);
  LayerNormBackward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), mean.data(), rstd.data(), N, C,
                    3);
  ExpectGradient("dx", x, dx, loss, 1e-3, 1e-2);
  ExpectGradient("dweight", w, dw, loss);
  ExpectGradient("dbias", b, db, loss);
}

TEST(KernelsTest, LinearBackwardMatchesFiniteDifference) {
  const int64_t N = 70, IC = 5, OC = 70;  // two row blocks, two column blocks
  std::vector<float> x = Random(N * IC, 8), w = Random(IC * OC, 9), b = Random(OC, 10), r = Random(N * OC, 11);
  std::vector<float> out(N * OC);
  auto loss = [&] {
    LinearForward(out.data(), x.data(), w.data(), b.data(), N, IC, OC, 2);
    return Dot(out, r);
  };
  std::vector<float> dx(N * IC), dw(IC * OC, 0.0f), db(OC, 0.0f);
  LinearBackward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, IC, OC, 3);
  ExpectGradient("dx", x, dx, loss);
  ExpectGradient("dweight", w, dw, loss);
  ExpectGradient("dbias", b, db, loss);
}

TEST(KernelsTest, ActivationBackwardMatchesFiniteDifference) {
  for (Activation act : {Activation::kGeluTanh, Activation::kGeluExact, Activation::kRelu}) {
    std::vector<float> x = Random(200, 12, 3.0f), r = Random(200, 13), out(200), dx(200);
    for (float& v : x) {
      if (std::abs(v) < 0.05f) v = 0.5f;  // keep ReLU's kink out of the difference
    }
    auto loss = [&] {
      ActivationForward(act, out.data(), x.data(), 200, 1);
      return Dot(out, r);
    };
    ActivationBackward(act, dx.data(), x.data(), r.data(), 200, 2);
    ExpectGradient(std::string(ActivationName(act)).c_str(), x, dx, loss, 1e-3);
  }
}

// Naive attention backward: the full softmax matrix P [T, T] per head, then the textbook rules
// dV = Pᵀ·dO, dP = dO·Vᵀ, dS = P ∘ (dP - rowsum(dP ∘ P)), dQ = dS·K·scale, dK = dSᵀ·Q·scale. Query i sees keys
// j <= i (causal) or all keys, and never keys j >= keys[b] (when given).
std::vector<float> NaiveAttentionBackward(const std::vector<float>& qkv, const std::vector<float>& dout, int64_t B,
                                          int64_t T, int64_t C, int64_t H, bool causal = true,
                                          const std::vector<int32_t>& keys = {}) {
  const int64_t Dh = C / H, C3 = 3 * C;
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  std::vector<float> dqkv(qkv.size(), 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      auto q = [&](int64_t t, int64_t d) { return static_cast<double>(qkv[(b * T + t) * C3 + h * Dh + d]); };
      auto k = [&](int64_t t, int64_t d) { return static_cast<double>(qkv[(b * T + t) * C3 + C + h * Dh + d]); };
      auto v = [&](int64_t t, int64_t d) { return static_cast<double>(qkv[(b * T + t) * C3 + 2 * C + h * Dh + d]); };
      auto dO = [&](int64_t t, int64_t d) { return static_cast<double>(dout[(b * T + t) * C + h * Dh + d]); };
      std::vector<double> P(T * T, 0.0), dP(T * T, 0.0);
      const int64_t visible = keys.empty() ? T : keys[b];
      auto last = [&](int64_t i) { return std::min(causal ? i : T - 1, visible - 1); };  // the last visible key
      for (int64_t i = 0; i < T; ++i) {
        double max = -1e300, sum = 0.0;
        for (int64_t j = 0; j <= last(i); ++j) {
          double s = 0.0;
          for (int64_t d = 0; d < Dh; ++d) s += q(i, d) * k(j, d);
          P[i * T + j] = s * scale;
          max = std::max(max, s * scale);
        }
        for (int64_t j = 0; j <= last(i); ++j) sum += (P[i * T + j] = std::exp(P[i * T + j] - max));
        for (int64_t j = 0; j <= last(i); ++j) P[i * T + j] /= sum;
      }
      for (int64_t i = 0; i < T; ++i) {
        double row = 0.0;
        for (int64_t j = 0; j <= last(i); ++j) {
          for (int64_t d = 0; d < Dh; ++d) dP[i * T + j] += dO(i, d) * v(j, d);
          row += dP[i * T + j] * P[i * T + j];
        }
        for (int64_t j = 0; j <= last(i); ++j) {
          const double dS = P[i * T + j] * (dP[i * T + j] - row);
          for (int64_t d = 0; d < Dh; ++d) {
            dqkv[(b * T + i) * C3 + h * Dh + d] += static_cast<float>(dS * k(j, d) * scale);
            dqkv[(b * T + j) * C3 + C + h * Dh + d] += static_cast<float>(dS * q(i, d) * scale);
            dqkv[(b * T + j) * C3 + 2 * C + h * Dh + d] += static_cast<float>(P[i * T + j] * dO(i, d));
          }
        }
      }
    }
  }
  return dqkv;
}

TEST(KernelsTest, AttentionBackwardMatchesNaiveAndFiniteDifference) {
  const int64_t B = 2, T = 7, C = 8, H = 2;
  std::vector<float> qkv = Random(B * T * 3 * C, 14, 1.5f), r = Random(B * T * C, 15);
  std::vector<float> out(B * T * C), lse(B * H * T);
  auto loss = [&] {
    AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, H, 2);
    return Dot(out, r);
  };
  loss();
  std::vector<float> dqkv(qkv.size());
  AttentionBackward(dqkv.data(), r.data(), out.data(), lse.data(), qkv.data(), B, T, C, H, 3);
  const std::vector<float> naive = NaiveAttentionBackward(qkv, r, B, T, C, H);
  for (size_t i = 0; i < dqkv.size(); ++i) EXPECT_NEAR(dqkv[i], naive[i], 1e-5) << "dqkv[" << i << "]";
  ExpectGradient("dqkv", qkv, dqkv, loss, 1e-3, 1e-2);
}

// Sequences longer than one query block (64 rows) of the blocked kernels, causal and bidirectional with padded
// keys, against the naive rules; the same bits for 1 and 3 threads.
TEST(KernelsTest, AttentionBackwardAcrossQueryBlocksMatchesNaive) {
  const int64_t B = 2, T = 150, C = 16, H = 2;
  std::vector<float> qkv = Random(B * T * 3 * C, 21, 1.0f), r = Random(B * T * C, 22);
  const std::vector<int32_t> keys = {150, 97};
  for (bool causal : {true, false}) {
    const int32_t* lengths = causal ? nullptr : keys.data();
    std::vector<float> out(B * T * C), lse(B * H * T), dqkv(qkv.size()), out3(out.size()), dqkv3(qkv.size());
    AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, H, 1, 0.0f, 0, causal, lengths);
    AttentionBackward(dqkv.data(), r.data(), out.data(), lse.data(), qkv.data(), B, T, C, H, 1, 0.0f, 0, causal,
                      lengths);
    const std::vector<float> naive =
        NaiveAttentionBackward(qkv, r, B, T, C, H, causal, causal ? std::vector<int32_t>{} : keys);
    for (size_t i = 0; i < dqkv.size(); ++i) {
      ASSERT_NEAR(dqkv[i], naive[i], 2e-5) << "causal " << causal << " dqkv[" << i << "]";
    }
    AttentionForward(out3.data(), lse.data(), qkv.data(), B, T, C, H, 3, 0.0f, 0, causal, lengths);
    AttentionBackward(dqkv3.data(), r.data(), out3.data(), lse.data(), qkv.data(), B, T, C, H, 3, 0.0f, 0, causal,
                      lengths);
    EXPECT_EQ(out3, out);
    EXPECT_EQ(dqkv3, dqkv);
  }
}

// RoPE's backward is the inverse rotation (its transpose): finite differences of r · RotaryQK(qkv), the forward
// equal to inference's ApplyRotaryToHead bit for bit, and v untouched.
TEST(KernelsTest, RotaryBackwardMatchesFiniteDifference) {
  const int64_t B = 2, T = 5, C = 8, H = 2;
  const RotaryOptions options{.base = 10000.0f, .pairing = RotaryPairing::kHalves};
  std::vector<float> qkv = Random(B * T * 3 * C, 23), r = Random(B * T * 3 * C, 24);
  auto loss = [&] {
    std::vector<float> rotated = qkv;
    RotaryQK(rotated.data(), B, T, C, H, options, /*inverse=*/false, 2);
    return Dot(rotated, r);
  };
  std::vector<float> grad = r;
  RotaryQK(grad.data(), B, T, C, H, options, /*inverse=*/true, 3);
  ExpectGradient("rotary", qkv, grad, loss, 1e-2, 1e-3);
  std::vector<float> rotated = qkv, expected = qkv;
  RotaryQK(rotated.data(), B, T, C, H, options, /*inverse=*/false, 1);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t part = 0; part < 2; ++part) {
      for (int64_t h = 0; h < H; ++h) {
        ApplyRotaryToHead(options, T, C / H, 0, expected.data() + b * T * 3 * C + part * C + h * (C / H), 3 * C);
      }
    }
  }
  EXPECT_EQ(rotated, expected);
}

TEST(KernelsTest, AttentionIsCausal) {
  const int64_t B = 1, T = 6, C = 4, H = 1;
  std::vector<float> qkv = Random(T * 3 * C, 16), out(T * C), lse(T), out2(T * C);
  AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, H, 1);
  for (int64_t c = 0; c < 3 * C; ++c) qkv[(T - 1) * 3 * C + c] += 1.0f;  // change only the last token
  AttentionForward(out2.data(), lse.data(), qkv.data(), B, T, C, H, 1);
  for (int64_t i = 0; i < (T - 1) * C; ++i) EXPECT_EQ(out[i], out2[i]) << i;
}

TEST(KernelsTest, DropoutDropsAboutPAndKeepsTheMean) {
  const int64_t n = 100000;
  std::vector<float> ones(n, 1.0f), out(n), back(n);
  DropoutForward(out.data(), ones.data(), n, 0.25f, DropoutSeed(3, 0, 1));
  int64_t dropped = 0;
  double sum = 0.0;
  for (float v : out) {
    dropped += v == 0.0f;
    sum += v;
    if (v != 0.0f) {
      EXPECT_FLOAT_EQ(v, 1.0f / 0.75f);
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / n, 0.25, 0.01);
  EXPECT_NEAR(sum / n, 1.0, 0.01);
  DropoutBackward(back.data(), ones.data(), n, 0.25f, DropoutSeed(3, 0, 1));
  EXPECT_EQ(back, out);  // the same mask, regenerated
  DropoutForward(back.data(), ones.data(), n, 0.25f, DropoutSeed(3, 0, 2));
  EXPECT_NE(back, out);  // another site, another mask
}

TEST(KernelsTest, AttentionDropoutBackwardMatchesFiniteDifference) {
  const int64_t B = 2, T = 6, C = 8, H = 2;
  std::vector<float> qkv = Random(B * T * 3 * C, 19, 1.5f), r = Random(B * T * C, 20);
  std::vector<float> out(B * T * C), lse(B * H * T);
  auto loss = [&] {
    AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, H, 2, 0.3f, 5);
    return Dot(out, r);
  };
  loss();
  std::vector<float> dqkv(qkv.size());
  AttentionBackward(dqkv.data(), r.data(), out.data(), lse.data(), qkv.data(), B, T, C, H, 3, 0.3f, 5);
  ExpectGradient("dqkv", qkv, dqkv, loss, 1e-3, 1e-2);
}

TEST(KernelsTest, CrossEntropyBackwardMatchesFiniteDifference) {
  const int64_t N = 9, C = 6, V = 2100;  // V > 2048: two vocabulary blocks of the logits and three of dwte
  std::vector<float> x = Random(N * C, 17), wte = Random(V * C, 18);
  std::vector<int32_t> targets = {3, kIgnoreIndex, 299, 0, 7, 7, kIgnoreIndex, 100, 257};
  int64_t valid = 0;
  auto loss = [&] {
    return CrossEntropyForwardBackward(x.data(), wte.data(), targets.data(), N, C, V, 0.0f, nullptr, nullptr,
                                       &valid, 1);
  };
  // Against a direct evaluation of -log softmax.
  double expected = 0.0;
  for (int64_t i = 0; i < N; ++i) {
    if (targets[i] == kIgnoreIndex) continue;
    std::vector<double> logits(V);
    double max = -1e300, sum = 0.0;
    for (int64_t v = 0; v < V; ++v) {
      for (int64_t c = 0; c < C; ++c) logits[v] += static_cast<double>(x[i * C + c]) * wte[v * C + c];
      max = std::max(max, logits[v]);
    }
    for (double l : logits) sum += std::exp(l - max);
    expected += std::log(sum) + max - logits[targets[i]];
  }
  EXPECT_NEAR(loss(), expected, 1e-4);
  EXPECT_EQ(valid, 7);
  std::vector<float> dx(N * C), dwte(V * C, 0.0f);
  CrossEntropyForwardBackward(x.data(), wte.data(), targets.data(), N, C, V, 1.0f, dx.data(), dwte.data(), &valid,
                              3);
  ExpectGradient("dx", x, dx, loss);
  ExpectGradient("dwte", wte, dwte, loss);
}

// The AVX-512 copy of the LM head's softmax pass gives the baseline copy's bits (no FMA contraction, fixed-lane sums):
// odd widths (a tail past the 16 lanes), a bias, an ignored row, logits far apart (exp's clamps), both directions.
TEST(CrossEntropyTest, SoftmaxRowsAvx512EqualsPortableBitForBit) {
  if (!Avx512Available()) GTEST_SKIP() << "the CPU has no AVX-512F";
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  for (const int64_t V : {1, 15, 17, 50257}) {
    const int64_t rows = 5;
    std::vector<float> logits(static_cast<size_t>(rows * V)), bias(static_cast<size_t>(V));
    for (float& l : logits) l = normal(rng);
    for (float& b : bias) b = normal(rng) / 4;
    logits[0] = 120.0f;  // e^(l - max) underflows to 0 for the rest of row 0
    std::vector<int32_t> targets = {0, static_cast<int32_t>(V - 1), kIgnoreIndex, static_cast<int32_t>(V / 2), 0};
    for (const bool backward : {false, true}) {
      for (const float* with_bias : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
        std::vector<float> a = logits, b = logits;
        std::vector<double> loss_a(rows), loss_b(rows);
        kernels_internal::SoftmaxRowsPortable(a.data(), rows, V, targets.data(), with_bias, 0.25f, backward,
                                              loss_a.data());
        kernels_internal::SoftmaxRowsAvx512(b.data(), rows, V, targets.data(), with_bias, 0.25f, backward,
                                            loss_b.data());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "V " << V;
        EXPECT_EQ(0, std::memcmp(loss_a.data(), loss_b.data(), loss_a.size() * sizeof(double))) << "V " << V;
      }
    }
  }
}

// The same for GPT-2's tanh GELU, forward and backward, over values that reach exp's clamps and a tail past 16 lanes.
TEST(ActivationTest, GeluTanhAvx512EqualsPortableBitForBit) {
  if (!Avx512Available()) GTEST_SKIP() << "the CPU has no AVX-512F";
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const int64_t n = 4099;
  std::vector<float> x(n), dout(n);
  for (float& v : x) v = normal(rng);
  for (float& v : dout) v = normal(rng);
  x[0] = 60.0f;
  x[1] = -60.0f;
  x[2] = 0.0f;
  std::vector<float> a(n), b(n);
  kernels_internal::GeluTanhForwardPortable(a.data(), x.data(), 0, n);
  kernels_internal::GeluTanhForwardAvx512(b.data(), x.data(), 0, n);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * sizeof(float)));
  kernels_internal::GeluTanhBackwardPortable(a.data(), x.data(), dout.data(), 0, n);
  kernels_internal::GeluTanhBackwardAvx512(b.data(), x.data(), dout.data(), 0, n);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), n * sizeof(float)));
}

}  // namespace
}  // namespace tokvec::training
