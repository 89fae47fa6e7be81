// LayerNormRowsInto (AVX-512 when available) must equal the scalar LayerNormInto (ops.h) within 1e-6 (the same
// formula in double, only the summation order differs), for widths with and without a partial last vector,
// in place too.
#include "kernels/layer_norm_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "embeddings/random_init.h"

namespace tokvec {
namespace {

class LayerNormRowsEqualsLayerNormInto : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerNormRowsEqualsLayerNormInto, WithinOneEMinus6) {
  const int64_t d = GetParam(), rows = 9;
  NormalSampler sampler(31 + d);
  Matrix x = sampler.Matrix(rows, d, 3.0f);  // [N, D]
  for (float& v : x.storage()) v += 5.0f;    // a mean far from 0, as after a residual
  Matrix gamma = sampler.Matrix(1, d, 0.3f);
  const Matrix beta = sampler.Matrix(1, d, 0.3f);
  for (float& g : gamma.storage()) g += 1.0f;
  const LayerNormWeights w{.gamma = {gamma.data(), static_cast<size_t>(d)},
                           .beta = {beta.data(), static_cast<size_t>(d)}};
  Matrix expected(rows, d), fast(rows, d);  // [N, D]
  LayerNormInto(x.view(), w, expected.data());
  LayerNormRowsInto(x.view(), w, fast.data());
  Matrix in_place = x;
  LayerNormRowsInto(in_place.view(), w, in_place.data());
  EXPECT_EQ(fast.storage(), in_place.storage()) << "in place differs";
  int reported = 0;
  for (size_t i = 0; i < expected.storage().size(); ++i) {
    const float e = expected.storage()[i], a = fast.storage()[i];
    if (!(std::fabs(e - a) <= 1e-6f) && reported++ < 5) {
      ADD_FAILURE() << "row " << static_cast<int64_t>(i) / d << " column " << static_cast<int64_t>(i) % d
                    << ": LayerNormInto " << e << " LayerNormRowsInto " << a;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, LayerNormRowsEqualsLayerNormInto, ::testing::Values(1, 5, 16, 17, 48, 100, 768));

}  // namespace
}  // namespace tokvec
