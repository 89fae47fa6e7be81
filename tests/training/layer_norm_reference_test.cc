// Training's LayerNormForward (training/kernels.h: float statistics, as in llm.c, keeping mean and rstd for the
// backward pass) against the reference LayerNorm of tokvec, LayerNormInto (kernels/ops.h: statistics in double).
// The two differ only by the float rounding of the mean and variance: within 2e-5 on rows whose mean is far
// from 0 (as after a residual), and the kept mean and rstd equal the double statistics within float rounding.
#include <cmath>
#include <cstdint>
#include <vector>

#include "embeddings/random_init.h"
#include "gtest/gtest.h"
#include "kernels/ops.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

class LayerNormForwardMatchesReference : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerNormForwardMatchesReference, OutputMeanAndRstd) {
  const int64_t d = GetParam(), rows = 9;
  NormalSampler sampler(57 + d);
  Matrix x = sampler.Matrix(rows, d, 3.0f);  // [N, D]
  for (float& v : x.storage()) v += 5.0f;
  Matrix gamma = sampler.Matrix(1, d, 0.3f);  // [1, D]
  const Matrix beta = sampler.Matrix(1, d, 0.3f);
  for (float& g : gamma.storage()) g += 1.0f;
  const float eps = 1e-5f;
  const LayerNormWeights w{.gamma = {gamma.data(), static_cast<size_t>(d)},
                           .beta = {beta.data(), static_cast<size_t>(d)}, .eps = eps};
  Matrix reference(rows, d);  // [N, D]
  LayerNormInto(x.view(), w, reference.data());

  for (int threads : {1, 2}) {
    std::vector<float> out(rows * d), mean(rows), rstd(rows);  // [N, D], [N], [N]
    LayerNormForward(out.data(), mean.data(), rstd.data(), x.data(), gamma.data(), beta.data(), rows, d, eps,
                     threads);
    int reported = 0;
    for (int64_t i = 0; i < rows * d; ++i) {
      const float e = reference.storage()[i], a = out[i];
      if (!(std::fabs(e - a) <= 2e-5f) && reported++ < 5) {
        ADD_FAILURE() << "threads " << threads << " row " << i / d << " column " << i % d << ": LayerNormInto "
                      << e << " LayerNormForward " << a;
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      double m = 0, v = 0;
      for (int64_t c = 0; c < d; ++c) m += x.data()[r * d + c];
      m /= d;
      for (int64_t c = 0; c < d; ++c) v += (x.data()[r * d + c] - m) * (x.data()[r * d + c] - m);
      v /= d;
      EXPECT_NEAR(mean[r], m, 1e-5 * std::fabs(m)) << "row " << r;
      EXPECT_NEAR(rstd[r], 1.0 / std::sqrt(v + eps), 1e-5 / std::sqrt(v + eps)) << "row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, LayerNormForwardMatchesReference, ::testing::Values(7, 64, 768));

}  // namespace
}  // namespace tokvec::training
