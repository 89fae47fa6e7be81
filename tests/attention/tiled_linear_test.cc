// TiledLinearInto (column-blocked, whole batch per sgemm) must equal the reference LinearInto (row-blocked)
// within float rounding, for both weight layouts, with bias and activation, and not depend on the thread count.
#include "attention/tiled_linear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "embeddings/random_init.h"

namespace tokvec {
namespace {

struct Case {
  int64_t rows, in, out;
  WeightLayout layout;
  bool bias;
};

class TiledLinearEqualsReference : public ::testing::TestWithParam<Case> {};

TEST_P(TiledLinearEqualsReference, WithinOneEMinus5) {
  const Case c = GetParam();
  NormalSampler sampler(77 + c.rows + c.out);
  const Matrix x = sampler.Matrix(c.rows, c.in, 1.0f);  // [N, in]
  const Matrix weight = c.layout == WeightLayout::kOutIn ? sampler.Matrix(c.out, c.in, 0.05f)
                                                         : sampler.Matrix(c.in, c.out, 0.05f);
  const Matrix bias = sampler.Matrix(1, c.out, 1.0f);  // [1, out]
  LinearWeights w{.weight = weight.view(), .layout = c.layout};
  if (c.bias) w.bias = std::span<const float>(bias.data(), static_cast<size_t>(c.out));
  Matrix expected(c.rows, c.out), one(c.rows, c.out), two(c.rows, c.out);  // [N, out]
  LinearInto(x.view(), w, expected.data(), 1);
  ApplyActivation(Activation::kGeluTanh, expected.storage());
  TiledLinearInto(x.view(), w, one.data(), 1, Activation::kGeluTanh);
  TiledLinearInto(x.view(), w, two.data(), 2, Activation::kGeluTanh);
  EXPECT_EQ(one.storage(), two.storage()) << "thread count changed the result";
  int reported = 0;
  for (int64_t i = 0; i < expected.size(); ++i) {
    const float e = expected.storage()[static_cast<size_t>(i)], a = one.storage()[static_cast<size_t>(i)];
    if (!(std::fabs(e - a) <= 1e-5f) && reported++ < 5) {
      ADD_FAILURE() << "element " << i << " (row " << i / c.out << ") reference " << e << " tiled " << a;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TiledLinearEqualsReference,
                         ::testing::Values(Case{1, 3, 1, WeightLayout::kOutIn, true},
                                           Case{300, 96, 300, WeightLayout::kOutIn, true},
                                           Case{300, 96, 300, WeightLayout::kInOut, true},
                                           Case{129, 200, 129, WeightLayout::kInOut, false},
                                           Case{70, 257, 513, WeightLayout::kOutIn, false},
                                           Case{600, 64, 800, WeightLayout::kOutIn, true},
                                           Case{1030, 40, 1540, WeightLayout::kInOut, true}));

}  // namespace
}  // namespace tokvec
