// PackedWeights::MultiplyAdd (tokvec's AVX-512 GEMM) against a double-precision reference and against
// cblas_sgemm for odd shapes of both weight layouts and strided views; a row's bits must not depend on how many
// rows share the call, its position, the column range, the tile or the thread count (the server's batching
// promise); TiledLinearInto with a packed weight must equal the OpenBLAS path within float rounding.
#include "kernels/packed_gemm.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "embeddings/random_init.h"
#include "kernels/tiled_linear.h"

namespace tokvec {
namespace {

// W[k, c] of a linear layer whatever its layout.
double WeightAt(const LinearWeights& w, int64_t k, int64_t c) {
  return w.layout == WeightLayout::kOutIn ? w.weight.data[c * w.ld() + k] : w.weight.data[k * w.ld() + c];
}

struct Shape {
  int64_t rows, in, out;
  WeightLayout layout;
};

class PackedGemmShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(PackedGemmShapes, MatchesDoubleReferenceAndSgemm) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  const Shape s = GetParam();
  NormalSampler sampler(11 + s.rows * 7 + s.in * 3 + s.out);
  const Matrix x = sampler.Matrix(s.rows, s.in, 1.0f);
  const Matrix weight = s.layout == WeightLayout::kOutIn ? sampler.Matrix(s.out, s.in, 0.1f)
                                                         : sampler.Matrix(s.in, s.out, 0.1f);
  const Matrix start = sampler.Matrix(s.rows, s.out, 1.0f);  // what y holds before (bias, residual)
  const LinearWeights w{.weight = weight.view(), .layout = s.layout};
  const std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(w);
  ASSERT_EQ(packed->in_features(), s.in);
  ASSERT_EQ(packed->out_features(), s.out);
  Matrix y = start, blas = start;
  packed->MultiplyAdd(x.data(), s.in, s.rows, 0, s.out, y.data(), s.out);
  if (s.rows > 0 && s.in > 0 && s.out > 0) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, s.layout == WeightLayout::kOutIn ? CblasTrans : CblasNoTrans,
                static_cast<int>(s.rows), static_cast<int>(s.out), static_cast<int>(s.in), 1.0f, x.data(),
                static_cast<int>(s.in), weight.data(), static_cast<int>(weight.cols()), 1.0f, blas.data(),
                static_cast<int>(s.out));
  }
  int reported = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t c = 0; c < s.out; ++c) {
      double exact = start.at(r, c), magnitude = std::fabs(exact);
      for (int64_t k = 0; k < s.in; ++k) {
        exact += static_cast<double>(x.at(r, k)) * WeightAt(w, k, c);
        magnitude += std::fabs(static_cast<double>(x.at(r, k)) * WeightAt(w, k, c));
      }
      // Float rounding of a chain of `in` FMAs: at most in·2⁻²⁴ times the sum of magnitudes; typically ~√in.
      const double bound = 1e-6 + 2e-7 * std::sqrt(static_cast<double>(s.in) + 1.0) * magnitude * 8;
      const double ours = y.at(r, c), theirs = blas.at(r, c);
      if ((!(std::fabs(ours - exact) <= bound) || !(std::fabs(ours - theirs) <= 2 * bound)) && reported++ < 5) {
        ADD_FAILURE() << "row " << r << " column " << c << ": exact " << exact << " packed " << ours << " sgemm "
                      << theirs << " bound " << bound;
      }
    }
  }
  // Untouched past the rows and columns asked for: a narrower call leaves the other columns as they were.
  if (s.out > kPackedColumns && s.rows > 0) {
    Matrix part = start;
    packed->MultiplyAdd(x.data(), s.in, s.rows, kPackedColumns, s.out - kPackedColumns - 1,
                          part.data() + kPackedColumns, s.out);
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t c = 0; c < s.out; ++c) {
        const bool inside = c >= kPackedColumns && c < s.out - 1;
        ASSERT_EQ(part.at(r, c), inside ? y.at(r, c) : start.at(r, c)) << "row " << r << " column " << c;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    OddShapes, PackedGemmShapes,
    ::testing::Values(Shape{1, 1, 1, WeightLayout::kOutIn}, Shape{1, 3, 1, WeightLayout::kInOut},
                      Shape{0, 5, 7, WeightLayout::kOutIn}, Shape{4, 0, 9, WeightLayout::kInOut},
                      Shape{7, 33, 17, WeightLayout::kOutIn}, Shape{13, 257, 45, WeightLayout::kInOut},
                      Shape{25, 513, 100, WeightLayout::kOutIn}, Shape{150, 96, 70, WeightLayout::kInOut},
                      Shape{145, 768, 33, WeightLayout::kOutIn}, Shape{290, 300, 65, WeightLayout::kInOut}));

// A view into a wider matrix (SliceOutputs: row_stride, offset data) packs the view's columns only.
TEST(PackedGemm, PacksStridedViews) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  NormalSampler sampler(5);
  const int64_t rows = 19, in = 70, out = 3 * 50;
  const Matrix x = sampler.Matrix(rows, in, 1.0f);
  for (WeightLayout layout : {WeightLayout::kInOut, WeightLayout::kOutIn}) {
    const Matrix weight = layout == WeightLayout::kOutIn ? sampler.Matrix(out, in, 0.1f) : sampler.Matrix(in, out, 0.1f);
    const LinearWeights whole{.weight = weight.view(), .layout = layout};
    const LinearWeights middle = SliceOutputs(whole, 50, 50);
    ASSERT_EQ(middle.packed, nullptr);
    const std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(middle);
    Matrix y(rows, 50);
    packed->MultiplyAdd(x.data(), in, rows, 0, 50, y.data(), 50);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < 50; ++c) {
        double exact = 0;
        for (int64_t k = 0; k < in; ++k) exact += static_cast<double>(x.at(r, k)) * WeightAt(whole, k, 50 + c);
        ASSERT_NEAR(y.at(r, c), exact, 1e-5) << "row " << r << " column " << c;
      }
    }
  }
}

// The batching promise: one row alone and the same row inside 1..300-row calls at the start, middle and end
// (other rows random), directly and through TiledLinearInto (tiles, 1 and 2 threads, segments): bit-identical.
TEST(PackedGemm, RowResultIndependentOfBatch) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  const int64_t in = 300, out = 1570;  // two column tiles in TiledLinearInto, a partial last panel
  NormalSampler sampler(99);
  const Matrix weight = sampler.Matrix(out, in, 0.1f);
  const Matrix bias = sampler.Matrix(1, out, 1.0f);
  LinearWeights w{.weight = weight.view(), .bias = std::span<const float>(bias.data(), out),
                  .layout = WeightLayout::kOutIn};
  const std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(w);
  w.packed = packed.get();
  const Matrix row = sampler.Matrix(1, in, 1.0f);
  Matrix alone(1, out);
  TiledLinearInto(row.view(), w, alone.data(), 1);
  const Matrix others = sampler.Matrix(300, in, 1.0f);
  for (int64_t n = 1; n <= 300; n += (n < 50 ? 1 : 7)) {
    for (int64_t position : {int64_t{0}, n / 2, n - 1}) {
      Matrix batch(n, in);
      for (int64_t r = 0; r < n; ++r) {
        const float* source = r == position ? row.data() : others.data() + r * in;
        std::copy_n(source, in, batch.data() + r * in);
      }
      Matrix direct(n, out), one(n, out), two(n, out);
      for (int64_t r = 0; r < n; ++r) std::copy_n(bias.data(), out, direct.data() + r * out);
      packed->MultiplyAdd(batch.data(), in, n, 0, out, direct.data(), out);
      TiledLinearInto(batch.view(), w, one.data(), 1);
      TiledLinearInto(batch.view(), w, two.data(), 2, LinearEpilogue{.segment_rows = n});
      for (const Matrix* m : {&direct, &one, &two}) {
        ASSERT_EQ(0, std::memcmp(m->data() + position * out, alone.data(), sizeof(float) * out))
            << "row at " << position << " of a " << n << "-row call";
      }
    }
  }
}

// The activation MultiplyAdd applies tile by tile gives the bits of applying it to the finished output, for
// every activation, an input deeper than kWholeDepthMax (depth blocks one pass at a time), a partial last panel
// and a short last row group, and a column range that starts past 0.
TEST(PackedGemm, FusedActivationEqualsApplyingItAfterwards) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  for (const int64_t in : {int64_t{70}, int64_t{1300}}) {
    const int64_t rows = 157, out = 203, col0 = 32, cols = out - col0;
    NormalSampler sampler(5 + in);
    const Matrix x = sampler.Matrix(rows, in, 1.0f), weight = sampler.Matrix(in, out, 0.1f);
    const Matrix start = sampler.Matrix(rows, out, 1.0f);
    const LinearWeights w{.weight = weight.view(), .layout = WeightLayout::kInOut};
    const std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(w);
    for (const Activation activation : {Activation::kRelu, Activation::kGeluExact, Activation::kGeluTanh}) {
      Matrix fused = start, after = start;
      packed->MultiplyAdd(x.data(), in, rows, col0, cols, fused.data() + col0, out, activation);  // y: column col0
      packed->MultiplyAdd(x.data(), in, rows, col0, cols, after.data() + col0, out);
      for (int64_t r = 0; r < rows; ++r) {
        ApplyActivation(activation, std::span<float>(after.row(r) + col0, static_cast<size_t>(cols)));
      }
      EXPECT_EQ(fused.storage(), after.storage()) << "in " << in << ", activation " << static_cast<int>(activation);
    }
  }
}

// TiledLinearInto's epilogues run the same with a packed weight: within float rounding of the OpenBLAS path.
TEST(PackedGemm, TiledLinearMatchesOpenBlasPath) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  NormalSampler sampler(3);
  const int64_t rows = 200, in = 130, out = 96;
  const Matrix x = sampler.Matrix(rows, in, 1.0f);
  const Matrix weight = sampler.Matrix(in, out, 0.1f);
  const Matrix bias = sampler.Matrix(1, out, 1.0f), residual = sampler.Matrix(rows, out, 1.0f);
  const Matrix gamma = sampler.Matrix(1, out, 1.0f), beta = sampler.Matrix(1, out, 1.0f);
  const LayerNormWeights norm{.gamma = {gamma.data(), static_cast<size_t>(out)},
                              .beta = {beta.data(), static_cast<size_t>(out)}};
  LinearWeights plain{.weight = weight.view(), .bias = std::span<const float>(bias.data(), out),
                      .layout = WeightLayout::kInOut};
  const std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(plain);
  LinearWeights fast = plain;
  fast.packed = packed.get();
  for (const LinearEpilogue& epilogue :
       {LinearEpilogue{.activation = Activation::kGeluTanh}, LinearEpilogue{.residual = residual.data(), .norm = &norm}}) {
    Matrix expected(rows, out), actual(rows, out);
    TiledLinearInto(x.view(), plain, expected.data(), 2, epilogue);
    TiledLinearInto(x.view(), fast, actual.data(), 2, epilogue);
    for (int64_t i = 0; i < expected.size(); ++i) {
      ASSERT_NEAR(actual.storage()[i], expected.storage()[i], 2e-5) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace tokvec
