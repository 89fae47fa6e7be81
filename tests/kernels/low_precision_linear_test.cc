// Reduced-precision linear layers (kernels/low_precision_linear.h) against an f64 product of the f32 inputs,
// within the error bounds that follow from the formats (derived in bf16_linear.h and int8_linear.h): random and
// odd shapes, both weight layouts, several column and row tiles; thread count and the epilogue; whole models
// (GPT-2, BERT and Llama shapes, the small random checkpoints of tests/attention/testdata) whose mean-pooled
// vectors must keep a cosine >= 0.999 with the f32 ones; dtype parsing and the unsupported-CPU error.
#include "kernels/low_precision_linear.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "embeddings/random_init.h"
#include "kernels/bf16_linear.h"
#include "kernels/int8_linear.h"
#include "kernels/tiled_linear.h"
#include "nlohmann/json.hpp"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"

namespace tokvec {
namespace {

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

#define SKIP_WITHOUT(dtype)                                                                   \
  if (absl::Status cpu = CheckCpuSupports(dtype); !cpu.ok()) GTEST_SKIP() << cpu.message()

struct Case {
  int64_t rows, in, out;
  WeightLayout layout;
};

class LowPrecisionLinearTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case c = GetParam();
    NormalSampler sampler(11 + c.rows * 7 + c.in * 3 + c.out);
    x_ = sampler.Matrix(c.rows, c.in, 1.0f);
    weight_ = c.layout == WeightLayout::kOutIn ? sampler.Matrix(c.out, c.in, 0.05f)
                                               : sampler.Matrix(c.in, c.out, 0.05f);
    w_ = {.weight = weight_.view(), .layout = c.layout};
  }
  float W(int64_t i, int64_t o) const {
    return w_.layout == WeightLayout::kOutIn ? weight_.at(o, i) : weight_.at(i, o);
  }
  // y = x·W with `dtype`'s kernels at 1 and 2 threads (which must agree bit for bit).
  Matrix Run(LinearDtype dtype) {
    absl::StatusOr<std::unique_ptr<LowPrecisionWeights>> packed = PackLowPrecision(w_, dtype);
    EXPECT_TRUE(packed.ok()) << packed.status();
    LinearWeights low = w_;
    low.low = packed->get();
    const Case c = GetParam();
    Matrix one(c.rows, c.out), two(c.rows, c.out);
    TiledLinearInto(x_.view(), low, one.data(), 1);
    TiledLinearInto(x_.view(), low, two.data(), 2);
    EXPECT_EQ(one.storage(), two.storage()) << "thread count changed the result";
    Matrix three(c.rows, c.out);
    LinearInto(x_.view(), low, three.data(), 2);  // the unbatched entry point dispatches to the same kernels
    EXPECT_EQ(one.storage(), three.storage());
    return one;
  }
  Matrix x_, weight_;
  LinearWeights w_;
};

TEST_P(LowPrecisionLinearTest, Bf16WithinRoundingBound) {
  SKIP_WITHOUT(LinearDtype::kBf16);
  const Case c = GetParam();
  const Matrix y = Run(LinearDtype::kBf16);
  // Each factor rounded to nearest bf16: relative error <= 2^-9; a product: <= 2^-8 + 2^-18; f32 sums: n·2^-24.
  const double relative = std::ldexp(1.0, -8) + std::ldexp(1.0, -18) + static_cast<double>(c.in) * std::ldexp(1.0, -23);
  int reported = 0;
  double worst = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t o = 0; o < c.out; ++o) {
      double exact = 0, magnitude = 0;
      for (int64_t i = 0; i < c.in; ++i) {
        exact += static_cast<double>(x_.at(r, i)) * W(i, o);
        magnitude += std::fabs(static_cast<double>(x_.at(r, i)) * W(i, o));
      }
      const double error = std::fabs(y.at(r, o) - exact);
      worst = std::max(worst, error / std::max(magnitude, 1e-30));
      if (!(error <= relative * magnitude + 1e-30) && reported++ < 5) {
        ADD_FAILURE() << "row " << r << " output " << o << ": " << y.at(r, o) << " vs " << exact << ", bound "
                      << relative * magnitude;
      }
    }
  }
  EXPECT_GT(worst, 0.0) << "no rounding at all: is the bf16 kernel running?";
}

TEST_P(LowPrecisionLinearTest, Int8WithinQuantizationBound) {
  SKIP_WITHOUT(LinearDtype::kInt8);
  const Case c = GetParam();
  const Matrix y = Run(LinearDtype::kInt8);
  std::vector<double> s(static_cast<size_t>(c.out), 0.0);  // per output: max |w| / 127
  for (int64_t o = 0; o < c.out; ++o) {
    for (int64_t i = 0; i < c.in; ++i) s[o] = std::max(s[o], std::fabs(static_cast<double>(W(i, o))) / 127);
  }
  int reported = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    double t = 0;  // per row: max |x| / 127
    for (int64_t i = 0; i < c.in; ++i) t = std::max(t, std::fabs(static_cast<double>(x_.at(r, i))) / 127);
    for (int64_t o = 0; o < c.out; ++o) {
      double exact = 0, bound = 0, magnitude = 0;
      for (int64_t i = 0; i < c.in; ++i) {
        const double xi = x_.at(r, i), wi = W(i, o);
        exact += xi * wi;
        magnitude += std::fabs(xi * wi);
        bound += std::fabs(xi) * s[o] / 2 + std::fabs(wi) * t / 2 + s[o] * t / 4;
      }
      bound += 1e-6 * (magnitude + bound);  // f32 scaling of the int32 sum
      const double error = std::fabs(y.at(r, o) - exact);
      if (!(error <= bound) && reported++ < 5) {
        ADD_FAILURE() << "row " << r << " output " << o << ": " << y.at(r, o) << " vs " << exact << ", bound "
                      << bound;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LowPrecisionLinearTest,
                         ::testing::Values(Case{1, 1, 1, WeightLayout::kOutIn}, Case{5, 3, 17, WeightLayout::kInOut},
                                           Case{7, 33, 15, WeightLayout::kOutIn},
                                           Case{13, 64, 70, WeightLayout::kInOut},
                                           Case{50, 768, 100, WeightLayout::kOutIn},
                                           Case{100, 130, 257, WeightLayout::kInOut},
                                           Case{1030, 40, 1540, WeightLayout::kOutIn}));

// The epilogue (bias, residual, LayerNorm; activation) still runs on the low-precision product.
TEST(LowPrecisionEpilogueTest, BiasResidualNormAndActivationAsF32) {
  for (LinearDtype dtype : {LinearDtype::kBf16, LinearDtype::kInt8}) {
    SKIP_WITHOUT(dtype);
    NormalSampler sampler(5);
    const int64_t rows = 37, in = 96, out = 48;
    const Matrix x = sampler.Matrix(rows, in, 1.0f), weight = sampler.Matrix(out, in, 0.1f);
    const Matrix bias = sampler.Matrix(1, out, 1.0f), residual = sampler.Matrix(rows, out, 1.0f);
    const Matrix gamma = sampler.Matrix(1, out, 1.0f), beta = sampler.Matrix(1, out, 1.0f);
    LinearWeights w{.weight = weight.view(), .bias = {bias.data(), static_cast<size_t>(out)}};
    const LayerNormWeights norm{.gamma = {gamma.data(), static_cast<size_t>(out)},
                                .beta = {beta.data(), static_cast<size_t>(out)}};
    absl::StatusOr<std::unique_ptr<LowPrecisionWeights>> packed = PackLowPrecision(w, dtype);
    ASSERT_TRUE(packed.ok()) << packed.status();
    LinearWeights low = w;
    low.low = packed->get();
    for (int with_norm = 0; with_norm < 2; ++with_norm) {
      const LinearEpilogue epilogue = with_norm ? LinearEpilogue{.residual = residual.data(), .norm = &norm}
                                                : LinearEpilogue{.activation = Activation::kGeluTanh};
      Matrix expected(rows, out), actual(rows, out);
      TiledLinearInto(x.view(), w, expected.data(), 1, epilogue);
      TiledLinearInto(x.view(), low, actual.data(), 1, epilogue);
      double worst = 0;
      for (int64_t i = 0; i < expected.size(); ++i) {
        worst = std::max<double>(worst, std::fabs(expected.storage()[i] - actual.storage()[i]));
      }
      // Products of ~1 x 0.1 over 96 inputs: y ~ 1; bf16 ~0.4% and int8 ~2% of that before the epilogue.
      EXPECT_LT(worst, dtype == LinearDtype::kBf16 ? 0.02 : 0.1) << LinearDtypeName(dtype) << " norm " << with_norm;
      EXPECT_GT(worst, 0.0);
    }
  }
}

double Cosine(const Matrix& a, const Matrix& b) {
  double dot = 0, na = 0, nb = 0;
  for (int64_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a.storage()[i]) * b.storage()[i];
    na += static_cast<double>(a.storage()[i]) * a.storage()[i];
    nb += static_cast<double>(b.storage()[i]) * b.storage()[i];
  }
  return dot / std::sqrt(na * nb);
}

class LowPrecisionModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LowPrecisionModelTest, PooledVectorsKeepCosineWithF32) {
  const std::string arch = GetParam();
  absl::StatusOr<std::string> json = ReadFile(kTestdata + "/hf_" + arch + "_reference.json");
  ASSERT_TRUE(json.ok()) << json.status();
  std::vector<std::string> owned = nlohmann::json::parse(*json)["texts"].get<std::vector<std::string>>();
  std::vector<std::string_view> texts(owned.begin(), owned.end());
  absl::StatusOr<ModelDirectory> f32 = ModelDirectory::Load(kTestdata + "/hf_" + arch + "_f32");
  ASSERT_TRUE(f32.ok()) << f32.status();
  absl::StatusOr<std::vector<TextVectors>> expected = EmbedTexts(*f32, texts, {.pooling = Pooling::kMean});
  ASSERT_TRUE(expected.ok()) << expected.status();
  const size_t f32_bytes = f32->model().LinearWeightBytes();
  for (LinearDtype dtype : {LinearDtype::kBf16, LinearDtype::kInt8}) {
    SKIP_WITHOUT(dtype);
    absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + arch + "_f32");
    ASSERT_TRUE(dir.ok()) << dir.status();
    ASSERT_TRUE(dir->UseLinearDtype(dtype).ok());
    EXPECT_EQ(dir->model().linear_dtype(), dtype);
    // Widths here are multiples of 16 and 4: bf16 is exactly half; int8 a quarter plus a scale and an offset per
    // output.
    if (dtype == LinearDtype::kBf16) {
      EXPECT_EQ(dir->model().LinearWeightBytes() * 2, f32_bytes);
    } else {
      EXPECT_LT(dir->model().LinearWeightBytes() * 3, f32_bytes);
    }
    for (int threads : {1, 2}) {
      absl::StatusOr<std::vector<TextVectors>> actual =
          EmbedTexts(*dir, texts, {.pooling = Pooling::kMean, .threads = threads});
      ASSERT_TRUE(actual.ok()) << actual.status();
      for (size_t i = 0; i < texts.size(); ++i) {
        const double cosine = Cosine((*expected)[i].vectors, (*actual)[i].vectors);
        EXPECT_GE(cosine, 0.999) << LinearDtypeName(dtype) << " text " << i;
        EXPECT_LT(cosine, 1.0 - 1e-12) << LinearDtypeName(dtype) << " text " << i << ": unchanged, is it f32?";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, LowPrecisionModelTest, ::testing::Values("gpt2", "bert", "llama"));

TEST(LinearDtypeTest, ParsesNamesAndRefusesOthers) {
  EXPECT_EQ(*ParseLinearDtype("f32"), LinearDtype::kF32);
  EXPECT_EQ(*ParseLinearDtype("bf16"), LinearDtype::kBf16);
  EXPECT_EQ(*ParseLinearDtype("int8"), LinearDtype::kInt8);
  absl::StatusOr<LinearDtype> bad = ParseLinearDtype("fp8");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("f32, bf16 or int8"), std::string_view::npos);
  EXPECT_FALSE(PackLowPrecision(LinearWeights{}, LinearDtype::kF32).ok());
}

TEST(LinearDtypeTest, UnsupportedCpuIsAnErrorNotF32) {
  ASSERT_EQ(setenv("TOKVEC_DISABLE_CPU_FEATURES", "avx512vnni,avx512bf16", 1), 0);
  const absl::Status bf16 = CheckCpuSupports(LinearDtype::kBf16), int8 = CheckCpuSupports(LinearDtype::kInt8);
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_gpt2_f32");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const absl::Status use = dir->UseLinearDtype(LinearDtype::kBf16);
  unsetenv("TOKVEC_DISABLE_CPU_FEATURES");
  EXPECT_EQ(bf16.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(bf16.message().find("avx512bf16"), std::string_view::npos) << bf16;
  EXPECT_EQ(int8.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(int8.message().find("avx512vnni"), std::string_view::npos) << int8;
  EXPECT_EQ(use.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(dir->model().linear_dtype(), LinearDtype::kF32);
  EXPECT_TRUE(CheckCpuSupports(LinearDtype::kF32).ok());
}

// int8 sums in int32: a layer with more inputs than kInt8MaxInFeatures could wrap, so it is refused, not wrong.
TEST(LinearDtypeTest, Int8RefusesLayersWhoseSumsCouldOverflow) {
  if (!CheckCpuSupports(LinearDtype::kInt8).ok()) GTEST_SKIP() << "this CPU lacks AVX-512 VNNI";
  std::vector<float> weight(static_cast<size_t>(kInt8MaxInFeatures + 1) * 2, 0.5f);
  const LinearWeights wide{.weight = {weight.data(), 2, kInt8MaxInFeatures + 1}, .layout = WeightLayout::kOutIn};
  absl::StatusOr<std::unique_ptr<LowPrecisionWeights>> packed = PackLowPrecision(wide, LinearDtype::kInt8);
  ASSERT_FALSE(packed.ok());
  EXPECT_EQ(packed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(packed.status().message().find("at most 33000 inputs"), std::string_view::npos) << packed.status();
  const LinearWeights fits{.weight = {weight.data(), 2, kInt8MaxInFeatures}, .layout = WeightLayout::kOutIn};
  EXPECT_TRUE(PackLowPrecision(fits, LinearDtype::kInt8).ok());
}

// ModelDirectory::Load(dir, dtype) packs once for the dtype (no f32 copy first) and runs as Load + UseLinearDtype.
TEST(LinearDtypeTest, LoadingWithADtypeEqualsSwitchingAfterLoad) {
  if (!CheckCpuSupports(LinearDtype::kBf16).ok()) GTEST_SKIP() << "this CPU lacks AVX-512 BF16";
  absl::StatusOr<ModelDirectory> direct = ModelDirectory::Load(kTestdata + "/hf_gpt2_f32", LinearDtype::kBf16);
  absl::StatusOr<ModelDirectory> switched = ModelDirectory::Load(kTestdata + "/hf_gpt2_f32");
  ASSERT_TRUE(direct.ok()) << direct.status();
  ASSERT_TRUE(switched.ok()) << switched.status();
  ASSERT_TRUE(switched->UseLinearDtype(LinearDtype::kBf16).ok());
  EXPECT_EQ(direct->model().linear_dtype(), LinearDtype::kBf16);
  EXPECT_EQ(direct->model().LinearWeightBytes(), switched->model().LinearWeightBytes());
  absl::StatusOr<EmbeddedText> a = direct->Embed("The cat sat on the mat.", {.threads = 2});
  absl::StatusOr<EmbeddedText> b = switched->Embed("The cat sat on the mat.", {.threads = 2});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->hidden.size(), b->hidden.size());
  EXPECT_TRUE(std::equal(a->hidden.data(), a->hidden.data() + a->hidden.size(), b->hidden.data()));
}

// AMX and AVX-512 VNNI sum the same integers exactly: Int8TileInto gives the same bits with either, for shapes
// whose inputs are not a multiple of AMX's 64-byte step, rows not a multiple of its 32, odd column counts and a
// column offset. Skipped where the CPU (or Linux) offers no AMX-INT8.
TEST(Int8KernelTest, AmxEqualsVnniBitForBit) {
  if (!AmxInt8Available()) GTEST_SKIP() << "no AMX-INT8 here (or TOKVEC_DISABLE_CPU_FEATURES lists amx-int8)";
  struct Shape {
    int64_t rows, in, out, col0, cols;
  };
  for (const Shape& s : {Shape{1, 8, 16, 0, 16}, Shape{5, 40, 17, 0, 17}, Shape{33, 100, 100, 16, 84},
                         Shape{70, 768, 96, 32, 64}, Shape{64, 260, 48, 0, 33}, Shape{31, 3072, 40, 16, 24}}) {
    NormalSampler sampler(static_cast<uint64_t>(s.rows * 1000 + s.in));
    const Matrix x = sampler.Matrix(s.rows, s.in, 1.0f), weight = sampler.Matrix(s.out, s.in, 0.05f);
    const LinearWeights w{.weight = weight.view(), .layout = WeightLayout::kOutIn};
    const Int8PackedWeights packed = PackInt8(w);
    Matrix vnni(s.rows, s.cols), amx(s.rows, s.cols);
    for (int64_t i = 0; i < vnni.size(); ++i) vnni.data()[i] = amx.data()[i] = 0.25f * static_cast<float>(i % 7);
    Int8TileInto(x.data(), s.in, s.rows, packed, s.col0, s.cols, vnni.data(), s.cols, Int8Kernel::kVnni);
    Int8TileInto(x.data(), s.in, s.rows, packed, s.col0, s.cols, amx.data(), s.cols, Int8Kernel::kAmx);
    EXPECT_TRUE(std::equal(vnni.data(), vnni.data() + vnni.size(), amx.data()))
        << s.rows << " x " << s.in << " -> " << s.out << " (columns " << s.col0 << "+" << s.cols << ")";
    double worst = 0.0;  // and both are the product, within int8's error
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t c = 0; c < s.cols; ++c) {
        double exact = 0.25 * static_cast<double>((r * s.cols + c) % 7);
        for (int64_t i = 0; i < s.in; ++i) exact += double{x.at(r, i)} * weight.at(s.col0 + c, i);
        worst = std::max(worst, std::fabs(exact - amx.at(r, c)) / (1.0 + std::sqrt(static_cast<double>(s.in))));
      }
    }
    EXPECT_LT(worst, 0.02) << s.rows << " x " << s.in;
  }
}

// AMX-BF16 and AVX-512 BF16 sum the same bf16 products in f32 in other orders: they agree to f32 rounding of the
// sums (|a - b| <= 2^-20·Σ|x·w|), on shapes with a partial last tile step, odd rows and columns, a column offset.
TEST(Bf16KernelTest, AmxAgreesWithAvx512) {
  if (!AmxBf16Available() || !CheckCpuSupports(LinearDtype::kBf16).ok()) {
    GTEST_SKIP() << "no AMX-BF16 here (or TOKVEC_DISABLE_CPU_FEATURES lists amx-bf16)";
  }
  struct Shape {
    int64_t rows, in, out, col0, cols;
  };
  for (const Shape& s : {Shape{1, 8, 16, 0, 16}, Shape{5, 41, 17, 0, 17}, Shape{33, 100, 100, 16, 84},
                         Shape{70, 768, 96, 32, 64}, Shape{31, 3072, 40, 16, 24}}) {
    NormalSampler sampler(static_cast<uint64_t>(s.rows * 1000 + s.in + 1));
    const Matrix x = sampler.Matrix(s.rows, s.in, 1.0f), weight = sampler.Matrix(s.out, s.in, 0.05f);
    const Bf16PackedWeights packed = PackBf16({.weight = weight.view(), .layout = WeightLayout::kOutIn});
    Matrix avx(s.rows, s.cols), amx(s.rows, s.cols);
    Bf16TileInto(x.data(), s.in, s.rows, packed, s.col0, s.cols, avx.data(), s.cols, Bf16Kernel::kAvx512);
    Bf16TileInto(x.data(), s.in, s.rows, packed, s.col0, s.cols, amx.data(), s.cols, Bf16Kernel::kAmx);
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t c = 0; c < s.cols; ++c) {
        double magnitude = 0.0;
        for (int64_t i = 0; i < s.in; ++i) magnitude += std::fabs(double{x.at(r, i)} * weight.at(s.col0 + c, i));
        ASSERT_LE(std::fabs(double{avx.at(r, c)} - amx.at(r, c)), magnitude * 0x1p-20 + 1e-30)
            << s.rows << " x " << s.in << " row " << r << " column " << c;
      }
    }
  }
}

// bf16 and int8 give a row the same bits whichever texts share its forward pass: each text alone equals the
// batch (the server's batching relies on it; the tiles run across texts).
TEST(LinearDtypeTest, ReducedPrecisionRowsDoNotDependOnTheBatch) {
  const std::vector<std::string> owned = {"The cat sat on the mat.", "a", "A longer text about dogs "
                                          "and cats, in two groups.", "dogs and cats, cats and dogs"};
  const std::vector<std::string_view> texts(owned.begin(), owned.end());
  if (!CheckCpuSupports(LinearDtype::kBf16).ok() && !CheckCpuSupports(LinearDtype::kInt8).ok()) {
    GTEST_SKIP() << "this CPU has neither AVX-512 BF16 nor VNNI";
  }
  for (LinearDtype dtype : {LinearDtype::kBf16, LinearDtype::kInt8}) {
    if (!CheckCpuSupports(dtype).ok()) continue;
    for (const std::string arch : {"gpt2", "bert"}) {
      absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + arch + "_f32", dtype);
      ASSERT_TRUE(dir.ok()) << dir.status();
      absl::StatusOr<std::vector<TextVectors>> batch = EmbedTexts(*dir, texts, {.pooling = Pooling::kMean});
      ASSERT_TRUE(batch.ok()) << batch.status();
      for (size_t i = 0; i < texts.size(); ++i) {
        absl::StatusOr<std::vector<TextVectors>> alone =
            EmbedTexts(*dir, std::vector<std::string_view>{texts[i]}, {.pooling = Pooling::kMean, .threads = 2});
        ASSERT_TRUE(alone.ok()) << alone.status();
        EXPECT_EQ((*alone)[0].vectors.storage(), (*batch)[i].vectors.storage())
            << arch << " " << LinearDtypeName(dtype) << " text " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tokvec
