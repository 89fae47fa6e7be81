// TiledLinearInto (column-blocked, whole batch per sgemm) must equal the reference LinearInto (row-blocked)
// within float rounding, for both weight layouts, with bias and activation, and not depend on the thread count;
// its residual and LayerNorm epilogue must equal LinearInto followed by a separate add and LayerNormInto.
#include "kernels/tiled_linear.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "embeddings/random_init.h"
#include "kernels/packed_gemm.h"

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

// A sequence's rows do not depend on the other sequences of its batch (OpenBLAS rounds a row by its place in the
// call; TiledLinearInto tiles each segment from its first row and pads calls, see kGemmRowMultiple): the
// sequences of a batch of 1..9 sequences of T rows equal each sequence computed alone, bit for bit, for T from 1
// to 130 and shapes from 32 to 300 wide. This is what lets `tokvec serve` batch requests without changing any
// vector.
TEST(TiledLinearRowsTest, ASequenceDoesNotDependOnItsBatchMates) {
  for (const auto& [in, out] : std::vector<std::pair<int64_t, int64_t>>{{32, 96}, {32, 32}, {128, 32}, {96, 300}}) {
    for (int64_t T : {1, 5, 13, 40, 130}) {
      NormalSampler sampler(5 + in + out + T);
      const int64_t batch = 9;
      const Matrix x = sampler.Matrix(batch * T, in, 1.0f);  // [9·T, in]
      const Matrix weight = sampler.Matrix(out, in, 0.05f);  // [out, in]
      const Matrix bias = sampler.Matrix(1, out, 1.0f);
      LinearWeights w{.weight = weight.view(),
                      .bias = std::span<const float>(bias.data(), static_cast<size_t>(out)),
                      .layout = WeightLayout::kOutIn};
      std::vector<Matrix> alone;  // each sequence by itself
      for (int64_t b = 0; b < batch; ++b) {
        alone.emplace_back(T, out);
        TiledLinearInto({x.row(b * T), T, in}, w, alone.back().data(), 1,
                        {.activation = Activation::kGeluTanh, .segment_rows = T});
      }
      int reported = 0;
      for (int64_t first : {0, 1, 4}) {
        for (int64_t count : {2, 3, 5}) {
          if (first + count > batch) continue;
          Matrix together(count * T, out);  // [count·T, out]
          TiledLinearInto({x.row(first * T), count * T, in}, w, together.data(), 2,
                          {.activation = Activation::kGeluTanh, .segment_rows = T});
          for (int64_t b = 0; b < count; ++b) {
            for (int64_t t = 0; t < T; ++t) {
              if (!std::equal(together.row(b * T + t), together.row(b * T + t) + out, alone[first + b].row(t)) &&
                  reported++ < 5) {
                ADD_FAILURE() << in << " -> " << out << ", T " << T << ": sequence " << first + b << " row " << t
                              << " differs in a batch of " << count << " from sequence " << first;
              }
            }
          }
        }
      }
    }
  }
}

// The same for sequences of different lengths (segment_lengths): each equals the sequence computed alone, bit
// for bit, on the OpenBLAS path (no packed weight) and with the packed GEMM.
TEST(TiledLinearRowsTest, ARaggedSequenceDoesNotDependOnItsBatchMates) {
  const std::vector<int64_t> lengths = {13, 1, 130, 0, 40, 5, 77};
  const int64_t rows = 266, in = 96, out = 300;
  NormalSampler sampler(21);
  const Matrix x = sampler.Matrix(rows, in, 1.0f);        // [Σ lengths, in]
  const Matrix weight = sampler.Matrix(out, in, 0.05f);  // [out, in]
  const Matrix bias = sampler.Matrix(1, out, 1.0f);
  LinearWeights w{.weight = weight.view(),
                  .bias = std::span<const float>(bias.data(), static_cast<size_t>(out)),
                  .layout = WeightLayout::kOutIn};
  std::unique_ptr<const PackedWeights> packed = PackedGemmAvailable() ? PackedWeights::Pack(w) : nullptr;
  for (const PackedWeights* p : {static_cast<const PackedWeights*>(nullptr), packed.get()}) {
    w.packed = p;  // first round OpenBLAS, then the packed GEMM
    for (int threads : {1, 2, 3}) {
      Matrix together(rows, out);
      TiledLinearInto(x.view(), w, together.data(), threads,
                      {.activation = Activation::kGeluTanh, .segment_lengths = lengths});
      int64_t row0 = 0;
      for (int64_t length : lengths) {
        if (length > 0) {
          Matrix alone(length, out);
          TiledLinearInto({x.row(row0), length, in}, w, alone.data(), 1, {.activation = Activation::kGeluTanh});
          EXPECT_TRUE(std::equal(alone.data(), alone.data() + alone.size(), together.row(row0)))
              << (p != nullptr ? "packed" : "OpenBLAS") << ", " << threads << " threads: the sequence at row "
              << row0 << " (" << length << " rows) differs from itself alone";
        }
        row0 += length;
      }
    }
    if (packed == nullptr) break;  // no AVX-512: the OpenBLAS round only
  }
}

// y_stride writes the output into its columns of a wider buffer (q, k and v side by side in [N, 3D]): the same
// values as a dense output, the other columns untouched; OpenBLAS, packed, and a ReLU epilogue.
TEST(TiledLinearRowsTest, OutputRowStrideWritesIntoAWiderBuffer) {
  const int64_t rows = 150, in = 64, out = 96, wide = 3 * out;
  NormalSampler sampler(31);
  const Matrix x = sampler.Matrix(rows, in, 1.0f), weight = sampler.Matrix(in, out, 0.1f);
  const Matrix bias = sampler.Matrix(1, out, 1.0f);
  LinearWeights w{.weight = weight.view(),
                  .bias = std::span<const float>(bias.data(), static_cast<size_t>(out)),
                  .layout = WeightLayout::kInOut};
  std::unique_ptr<const PackedWeights> packed = PackedGemmAvailable() ? PackedWeights::Pack(w) : nullptr;
  for (const PackedWeights* p : {static_cast<const PackedWeights*>(nullptr), packed.get()}) {
    w.packed = p;
    Matrix dense(rows, out);
    TiledLinearInto(x.view(), w, dense.data(), 2, Activation::kRelu);
    Matrix buffer(rows, wide);
    std::fill(buffer.data(), buffer.data() + buffer.size(), -7.0f);
    TiledLinearInto(x.view(), w, buffer.data() + out, 2, {.activation = Activation::kRelu, .y_stride = wide});
    for (int64_t r = 0; r < rows; ++r) {
      ASSERT_TRUE(std::equal(dense.row(r), dense.row(r) + out, buffer.row(r) + out)) << "row " << r;
      ASSERT_TRUE(std::all_of(buffer.row(r), buffer.row(r) + out, [](float v) { return v == -7.0f; }));
      ASSERT_TRUE(std::all_of(buffer.row(r) + 2 * out, buffer.row(r) + wide, [](float v) { return v == -7.0f; }));
    }
    if (packed == nullptr) break;
  }
}

}  // namespace
}  // namespace tokvec
