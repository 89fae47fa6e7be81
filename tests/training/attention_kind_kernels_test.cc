// The training kernels of every kind of attention (training/kernels.h AttentionForward/Backward with a
// SparsePattern; training/attention_kind_kernels.h for linformer, performer and linear) against PyTorch:
// tests/data/attention/kind_grad_*.json hold each kind's output and the gradients d_q, d_k, d_v (and linformer's
// d_E, d_F) of L = Σ output ∘ d_output, by autograd through the float64 reference of
// scripts/gen_attention_goldens.py (attend_kind), T = 150 (several query blocks and kernel chunks), 2 heads.
// Also: any thread count gives the same bits, and two batch rows are computed independently (parameter gradients
// add up over the rows).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "attention/attention_kind.h"
#include "attention/kernel_attention.h"
#include "attention/sparse_pattern.h"
#include "gtest/gtest.h"
#include "tests/golden.h"
#include "training/attention_kind_kernels.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

// Everything one call of a kind's kernels produces.
struct KindRun {
  std::vector<float> out, lse, dqkv, de, df;
};

// One golden case, set up for the kernels: the fused qkv of `batch` copies of the sequence, its key lengths.
class KindCase {
 public:
  explicit KindCase(const std::string& name) : name_(name), g_(Golden::Load(name)) {
    absl::StatusOr<AttentionKind> kind = ParseAttentionKind(g_.config.at("kind").get<std::string>());
    EXPECT_TRUE(kind.ok()) << kind.status();
    kind_ = kind.ok() ? *kind : AttentionKind{};
    T_ = g_.config.at("seq_len").get<int64_t>();
    H_ = g_.config.at("n_heads").get<int64_t>();
    C_ = H_ * g_.config.at("head_dim").get<int64_t>();
    causal_ = g_.config.at("causal").get<bool>();
    length_ = T_;
    if (g_.Has("key_padding")) {  // the goldens pad a suffix of the keys
      const std::vector<uint8_t> padding = g_.Mask("key_padding", 0, T_);
      length_ = std::find(padding.begin(), padding.end(), 1) - padding.begin();
      EXPECT_TRUE(std::all_of(padding.begin() + length_, padding.end(), [](uint8_t p) { return p == 1; }));
    }
    if (kind_.sparse()) {
      absl::StatusOr<SparsePattern> pattern =
          SparsePattern::Make(kind_, T_, causal_, g_.config.value("seed", uint64_t{0}));
      EXPECT_TRUE(pattern.ok()) << pattern.status();
      if (pattern.ok()) pattern_ = *std::move(pattern);
    }
    if (g_.Has("W")) features_ = ToMatrix(g_.View("W"));
  }

  const Golden& golden() const { return g_; }
  int64_t T() const { return T_; }
  int64_t C() const { return C_; }
  bool is_linformer() const { return kind_.type == AttentionKindType::kLinformer; }

  // Forward with d_output's batch copies as the upstream gradient, then backward.
  KindRun Run(int64_t batch, int threads) const {
    const int64_t N = batch * T_;
    std::vector<float> qkv(static_cast<size_t>(N * 3 * C_)), dout(static_cast<size_t>(N * C_));
    const std::span<const float> q = g_.Span("q"), k = g_.Span("k"), v = g_.Span("v"), d = g_.Span("d_output");
    for (int64_t n = 0; n < N; ++n) {
      const int64_t i = n % T_;
      float* row = qkv.data() + n * 3 * C_;
      std::copy_n(q.data() + i * C_, C_, row);
      std::copy_n(k.data() + i * C_, C_, row + C_);
      std::copy_n(v.data() + i * C_, C_, row + 2 * C_);
      std::copy_n(d.data() + i * C_, C_, dout.data() + n * C_);
    }
    const std::vector<int32_t> lengths(static_cast<size_t>(batch), static_cast<int32_t>(length_));
    const int32_t* key_lengths = length_ < T_ ? lengths.data() : nullptr;
    KindRun r;
    r.out.assign(static_cast<size_t>(N * C_), 0.0f);
    r.lse.assign(static_cast<size_t>(batch * H_ * T_), 0.0f);
    r.dqkv.assign(qkv.size(), 0.0f);
    if (is_linformer()) {
      const int64_t K = kind_.rank, max_len = g_.config.at("max_len").get<int64_t>();
      const float* e = g_.Span("E").data();
      const float* f = g_.Span("F").data();
      r.de.assign(static_cast<size_t>(K * max_len), 0.0f);
      r.df.assign(r.de.size(), 0.0f);
      LinformerForward(r.out.data(), r.lse.data(), qkv.data(), e, f, K, max_len, batch, T_, C_, H_, threads, 0.0f, 0,
                       key_lengths);
      LinformerBackward(r.dqkv.data(), r.de.data(), r.df.data(), dout.data(), r.out.data(), r.lse.data(), qkv.data(),
                        e, f, K, max_len, batch, T_, C_, H_, threads, 0.0f, 0, key_lengths);
    } else if (kind_.type == AttentionKindType::kLinear || kind_.type == AttentionKindType::kPerformer) {
      const KernelFeatureMap map{.type = kind_.type,
                                 .features = features_ ? &*features_ : nullptr,
                                 .scale = g_.config.at("scale").get<float>()};
      FeatureMapAttentionForward(r.out.data(), qkv.data(), map, batch, T_, C_, H_, threads, causal_, key_lengths);
      FeatureMapAttentionBackward(r.dqkv.data(), dout.data(), r.out.data(), qkv.data(), map, batch, T_, C_, H_,
                                  threads, causal_, key_lengths);
    } else {
      const SparsePattern* pattern = pattern_ ? &*pattern_ : nullptr;
      AttentionForward(r.out.data(), r.lse.data(), qkv.data(), batch, T_, C_, H_, threads, 0.0f, 0, causal_,
                       key_lengths, pattern);
      AttentionBackward(r.dqkv.data(), dout.data(), r.out.data(), r.lse.data(), qkv.data(), batch, T_, C_, H_,
                        threads, 0.0f, 0, causal_, key_lengths, pattern);
    }
    return r;
  }

  // Column block `third` (0 = q, 1 = k, 2 = v) of batch row b of a fused [N, 3C] gradient, as [T, C].
  std::vector<float> Third(const std::vector<float>& dqkv, int64_t b, int third) const {
    std::vector<float> m(static_cast<size_t>(T_ * C_));
    for (int64_t i = 0; i < T_; ++i) {
      std::copy_n(dqkv.data() + (b * T_ + i) * 3 * C_ + third * C_, C_, m.data() + i * C_);
    }
    return m;
  }
  std::vector<float> Rows(const std::vector<float>& out, int64_t b) const {
    return {out.begin() + b * T_ * C_, out.begin() + (b + 1) * T_ * C_};
  }

 private:
  std::string name_;
  Golden g_;
  AttentionKind kind_;
  int64_t T_ = 0, H_ = 0, C_ = 0, length_ = 0;
  bool causal_ = false;
  std::optional<SparsePattern> pattern_;
  std::optional<Matrix> features_;
};

// max |actual - factor·expected| <= tolerance · max(1, max |factor·expected|): float32 rounding grows with the
// magnitude (linformer's d_E reaches ~30), so the bound is relative for large tensors and absolute below 1.
void ExpectMatches(const std::string& what, const std::vector<float>& actual, std::span<const float> expected,
                   double tolerance, double factor = 1.0) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double diff = 0.0, magnitude = 1.0;
  size_t worst = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double want = factor * expected[i];
    magnitude = std::max(magnitude, std::fabs(want));
    const double d = std::fabs(actual[i] - want);
    if (!(d <= diff)) {
      diff = d;
      worst = i;
    }
  }
  std::printf("[ vs torch ] %-40s max abs diff %.3g (largest value %.3g)\n", what.c_str(), diff, magnitude);
  EXPECT_LE(diff, tolerance * magnitude) << what << ": element " << worst << " is " << actual[worst]
                                         << ", torch " << factor * expected[worst];
}

class AttentionKindKernelsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionKindKernelsTest, OutputAndGradientsMatchTorch) {
  const KindCase c("kind_grad_" + GetParam());
  const Golden& g = c.golden();
  const KindRun r = c.Run(/*batch=*/1, /*threads=*/2);
  ExpectMatches(GetParam() + " output", r.out, g.Span("output"), 1e-5);
  ExpectMatches(GetParam() + " d_q", c.Third(r.dqkv, 0, 0), g.Span("d_q"), 1e-5);
  ExpectMatches(GetParam() + " d_k", c.Third(r.dqkv, 0, 1), g.Span("d_k"), 1e-5);
  ExpectMatches(GetParam() + " d_v", c.Third(r.dqkv, 0, 2), g.Span("d_v"), 1e-5);
  if (c.is_linformer()) {
    ExpectMatches(GetParam() + " d_E", r.de, g.Span("d_E"), 1e-5);
    ExpectMatches(GetParam() + " d_F", r.df, g.Span("d_F"), 1e-5);
  }
  for (float x : r.lse) EXPECT_FALSE(std::isnan(x)) << GetParam() << ": NaN log-sum-exp";
}

TEST_P(AttentionKindKernelsTest, SameBitsForAnyThreadCount) {
  const KindCase c("kind_grad_" + GetParam());
  const KindRun one = c.Run(/*batch=*/2, /*threads=*/1);
  for (int threads : {2, 3}) {
    const KindRun many = c.Run(/*batch=*/2, threads);
    EXPECT_EQ(one.out, many.out) << GetParam() << ": output, " << threads << " threads";
    EXPECT_EQ(one.lse, many.lse) << GetParam() << ": lse, " << threads << " threads";
    EXPECT_EQ(one.dqkv, many.dqkv) << GetParam() << ": dqkv, " << threads << " threads";
    EXPECT_EQ(one.de, many.de) << GetParam() << ": dE, " << threads << " threads";
    EXPECT_EQ(one.df, many.df) << GetParam() << ": dF, " << threads << " threads";
  }
}

// Two batch rows holding the same sequence: each row's output and input gradients are the golden's, and the
// parameter gradients (linformer's E, F: shared by the rows) are twice the golden's.
TEST_P(AttentionKindKernelsTest, BatchRowsAreIndependent) {
  const KindCase c("kind_grad_" + GetParam());
  const Golden& g = c.golden();
  const KindRun r = c.Run(/*batch=*/2, /*threads=*/2);
  for (int64_t b = 0; b < 2; ++b) {
    const std::string row = GetParam() + " row " + std::to_string(b);
    ExpectMatches(row + " output", c.Rows(r.out, b), g.Span("output"), 1e-5);
    ExpectMatches(row + " d_q", c.Third(r.dqkv, b, 0), g.Span("d_q"), 1e-5);
    ExpectMatches(row + " d_k", c.Third(r.dqkv, b, 1), g.Span("d_k"), 1e-5);
    ExpectMatches(row + " d_v", c.Third(r.dqkv, b, 2), g.Span("d_v"), 1e-5);
  }
  if (c.is_linformer()) {
    ExpectMatches(GetParam() + " d_E over 2 rows", r.de, g.Span("d_E"), 1e-5, 2.0);
    ExpectMatches(GetParam() + " d_F over 2 rows", r.df, g.Span("d_F"), 1e-5, 2.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, AttentionKindKernelsTest,
                         ::testing::Values("full_causal", "full_bidir", "window_causal", "window_bidir",
                                           "longformer_causal", "longformer_bidir", "bigbird_bidir", "bigbird_causal",
                                           "linformer", "performer_bidir", "performer_causal", "linear_bidir",
                                           "linear_causal"));

}  // namespace
}  // namespace tokvec::training
