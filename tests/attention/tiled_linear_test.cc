// TiledLinearInto (column-blocked, whole batch per sgemm) must equal the reference LinearInto (row-blocked)
// within float rounding, for both weight layouts, with bias and activation, and not depend on the thread count;
// its residual and LayerNorm epilogue must equal LinearInto followed by a separate add and LayerNormInto.
#include "attention/tiled_linear.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

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


// Reports up to 5 elements where `actual` is not within 1e-5 of `expected`.
void ExpectWithinOneEMinus5(const std::vector<float>& expected, const std::vector<float>& actual, int64_t cols,
                            const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size());
  int reported = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!(std::fabs(expected[i] - actual[i]) <= 1e-5f) && reported++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " (row " << static_cast<int64_t>(i) / cols << ") reference "
                    << expected[i] << " tiled " << actual[i];
    }
  }
}

class TiledLinearEpilogue : public ::testing::TestWithParam<Case> {};

// y = LN(r + x·W + b) and y = r + x·W + b (in place, r == y) against the unfused ops.
TEST_P(TiledLinearEpilogue, ResidualAndLayerNormEqualSeparateOps) {
  const Case c = GetParam();
  NormalSampler sampler(5 + c.rows + c.out);
  const Matrix x = sampler.Matrix(c.rows, c.in, 1.0f);  // [N, in]
  const Matrix weight = c.layout == WeightLayout::kOutIn ? sampler.Matrix(c.out, c.in, 0.05f)
                                                         : sampler.Matrix(c.in, c.out, 0.05f);
  const Matrix bias = sampler.Matrix(1, c.out, 1.0f), residual = sampler.Matrix(c.rows, c.out, 1.0f);
  Matrix gamma = sampler.Matrix(1, c.out, 0.2f);
  const Matrix beta = sampler.Matrix(1, c.out, 0.2f);
  for (float& g : gamma.storage()) g += 1.0f;
  LinearWeights w{.weight = weight.view(), .layout = c.layout};
  if (c.bias) w.bias = std::span<const float>(bias.data(), static_cast<size_t>(c.out));
  const LayerNormWeights norm{.gamma = {gamma.data(), static_cast<size_t>(c.out)},
                              .beta = {beta.data(), static_cast<size_t>(c.out)}};

  Matrix sum(c.rows, c.out), normed(c.rows, c.out);  // [N, out] reference: r + x·W + b, then its LayerNorm
  LinearInto(x.view(), w, sum.data(), 1);
  for (size_t i = 0; i < sum.storage().size(); ++i) sum.storage()[i] += residual.storage()[i];
  LayerNormInto(sum.view(), norm, normed.data());

  Matrix one(c.rows, c.out), two(c.rows, c.out);  // [N, out]
  TiledLinearInto(x.view(), w, one.data(), 1, {.residual = residual.data(), .norm = &norm});
  TiledLinearInto(x.view(), w, two.data(), 2, {.residual = residual.data(), .norm = &norm});
  EXPECT_EQ(one.storage(), two.storage()) << "thread count changed the LayerNorm epilogue";
  ExpectWithinOneEMinus5(normed.storage(), one.storage(), c.out, "LN(r + x·W + b)");

  Matrix in_place = residual;  // [N, out]: y = y + x·W + b
  TiledLinearInto(x.view(), w, in_place.data(), 2, {.residual = in_place.data()});
  ExpectWithinOneEMinus5(sum.storage(), in_place.storage(), c.out, "in-place residual");
}

INSTANTIATE_TEST_SUITE_P(Shapes, TiledLinearEpilogue,
                         ::testing::Values(Case{1, 3, 2, WeightLayout::kOutIn, true},
                                           Case{300, 96, 64, WeightLayout::kOutIn, true},
                                           Case{129, 200, 48, WeightLayout::kInOut, false},
                                           Case{1030, 40, 1600, WeightLayout::kInOut, true}));

}  // namespace
}  // namespace tokvec

namespace tokvec {
namespace {

// A row's output does not depend on how many other rows share the call (OpenBLAS takes another path for small
// products; TiledLinearInto pads them, see MinGemmRows): every prefix and every window of a 300-row input gives
// bit for bit the rows the whole input gives. This is what lets `tokvec serve` batch requests without changing
// any vector.
TEST(TiledLinearRowsTest, ARowDoesNotDependOnItsBatchMates) {
  for (const auto& [in, out] : std::vector<std::pair<int64_t, int64_t>>{{32, 96}, {32, 32}, {128, 32}, {96, 300}}) {
    NormalSampler sampler(5 + in + out);
    const Matrix x = sampler.Matrix(300, in, 1.0f);        // [300, in]
    const Matrix weight = sampler.Matrix(out, in, 0.05f);  // [out, in]
    const Matrix bias = sampler.Matrix(1, out, 1.0f);
    LinearWeights w{.weight = weight.view(), .bias = std::span<const float>(bias.data(), static_cast<size_t>(out)),
                    .layout = WeightLayout::kOutIn};
    Matrix whole(300, out);  // [300, out]
    TiledLinearInto(x.view(), w, whole.data(), 1, Activation::kGeluTanh);
    int reported = 0;
    for (int64_t start : {0, 1, 7, 150}) {
      for (int64_t rows : {1, 2, 5, 12, 13, 40, 100}) {
        if (start + rows > 300) continue;
        Matrix part(rows, out);  // [rows, out]
        TiledLinearInto({x.row(start), rows, in}, w, part.data(), 1, Activation::kGeluTanh);
        for (int64_t r = 0; r < rows; ++r) {
          if (!std::equal(part.row(r), part.row(r) + out, whole.row(start + r)) && reported++ < 5) {
            ADD_FAILURE() << in << " -> " << out << ": row " << start + r << " differs when computed with " << rows
                          << " rows from row " << start;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tokvec
