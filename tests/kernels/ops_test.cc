#include "kernels/ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/golden.h"

namespace tokvec {
namespace {

TEST(LinearTest, BothLayoutsMatchPyTorch) {
  const Golden g = Golden::Load("ops");
  const MatrixView x = g.View("x");  // [5, 8]
  absl::StatusOr<Matrix> out_in =
      Linear(x, {.weight = g.View("w_out_in"), .bias = g.Span("bias"), .layout = WeightLayout::kOutIn});
  ASSERT_TRUE(out_in.ok()) << out_in.status();
  ExpectClose("F.linear (weight [out, in])", out_in->view(), g.View("linear_out_in"), 1e-5);
  absl::StatusOr<Matrix> in_out =
      Linear(x, {.weight = g.View("w_in_out"), .bias = g.Span("bias"), .layout = WeightLayout::kInOut});
  ASSERT_TRUE(in_out.ok()) << in_out.status();
  ExpectClose("addmm Conv1D (weight [in, out])", in_out->view(), g.View("linear_in_out"), 1e-5);
}

TEST(LinearTest, SliceOutputsSelectsColumnsOfConv1DAndRowsOfLinear) {
  const Golden g = Golden::Load("ops");
  const MatrixView x = g.View("x");
  for (WeightLayout layout : {WeightLayout::kOutIn, WeightLayout::kInOut}) {
    const bool out_in = layout == WeightLayout::kOutIn;
    const LinearWeights full{.weight = g.View(out_in ? "w_out_in" : "w_in_out"), .bias = g.Span("bias"),
                             .layout = layout};
    absl::StatusOr<Matrix> all = Linear(x, full);
    absl::StatusOr<Matrix> part = Linear(x, SliceOutputs(full, 2, 3));  // outputs 2, 3, 4
    ASSERT_TRUE(all.ok() && part.ok());
    ASSERT_EQ(part->cols(), 3);
    for (int64_t t = 0; t < x.rows; ++t) {
      // Within 1e-6 (the values are O(1) sums of 8 products), not bit for bit: BLAS may sum in another order for 3
      // columns than for 8 (OpenBLAS's AVX-512 small-matrix path does, on Sapphire Rapids: 16 ulp). Results stay
      // independent of the thread count: the tiles are fixed (ThreadCountDoesNotChangeABit).
      for (int64_t o = 0; o < 3; ++o) EXPECT_NEAR(part->at(t, o), all->at(t, o + 2), 1e-6);
    }
  }
}

TEST(LinearTest, ShapeMismatchIsInvalidArgumentWithShapes) {
  Matrix x(2, 4), w(3, 5);
  absl::StatusOr<Matrix> y = Linear(x.view(), {.weight = w.view()});
  ASSERT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(y.status().message()).find("[3, 5]"), std::string::npos) << y.status();
}

TEST(LinearTest, ThreadCountDoesNotChangeABit) {
  std::mt19937_64 engine(5);
  std::normal_distribution<float> normal;  // the inputs only need to be some numbers
  Matrix x(300, 48), w(600, 48);           // several row and column tiles, with remainders
  for (float& v : x.storage()) v = normal(engine);
  for (float& v : w.storage()) v = normal(engine);
  absl::StatusOr<Matrix> one = Linear(x.view(), {.weight = w.view()}, 1);
  absl::StatusOr<Matrix> two = Linear(x.view(), {.weight = w.view()}, 2);
  absl::StatusOr<Matrix> five = Linear(x.view(), {.weight = w.view()}, 5);
  ASSERT_TRUE(one.ok() && two.ok() && five.ok());
  EXPECT_EQ(one->storage(), two->storage());
  EXPECT_EQ(one->storage(), five->storage());
}

TEST(LayerNormTest, MatchesPyTorch) {
  const Golden g = Golden::Load("ops");
  absl::StatusOr<Matrix> y =
      LayerNorm(g.View("x"), {.gamma = g.Span("gamma"), .beta = g.Span("beta"), .eps = 1e-5f});
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectClose("F.layer_norm", y->view(), g.View("layer_norm"), 1e-5);
}

TEST(LayerNormTest, WrongWidthIsInvalidArgument) {
  std::vector<float> gamma(3, 1.0f), beta(3, 0.0f);
  Matrix x(2, 4);
  EXPECT_EQ(LayerNorm(x.view(), {.gamma = gamma, .beta = beta}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ActivationTest, MatchesPyTorch) {
  const Golden g = Golden::Load("ops");
  for (auto [activation, key] : {std::pair{Activation::kGeluExact, "gelu"}, {Activation::kGeluTanh, "gelu_tanh"},
                                 {Activation::kRelu, "relu"}}) {
    Matrix values = ToMatrix(g.View("act_in"));
    ApplyActivation(activation, values.storage());
    ExpectClose(std::string("F.") + key, values.view(), g.View(key), 1e-5);
  }
}

TEST(ActivationTest, ThreadedIsBitIdenticalToSerial) {
  std::vector<float> serial(100000), threaded;
  for (size_t i = 0; i < serial.size(); ++i) serial[i] = static_cast<float>(i % 977) * 0.013f - 6.0f;
  threaded = serial;
  ApplyActivation(Activation::kGeluTanh, serial);
  ApplyActivation(Activation::kGeluTanh, threaded, 3);
  EXPECT_EQ(serial, threaded);
}

TEST(ActivationTest, ParsesNamesAndRejectsUnknownOnes) {
  EXPECT_EQ(*ParseActivation("relu"), Activation::kRelu);
  EXPECT_EQ(*ParseActivation("gelu"), Activation::kGeluExact);
  EXPECT_EQ(*ParseActivation("gelu_new"), Activation::kGeluTanh);
  absl::StatusOr<Activation> bad = ParseActivation("swish");
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad.status().message()).find("'swish'"), std::string::npos);
  EXPECT_EQ(ActivationName(Activation::kGeluTanh), "gelu_new");
}

TEST(SoftmaxTest, MatchesPyTorchWithMaskedEntries) {
  const Golden g = Golden::Load("ops");
  Matrix scores = ToMatrix(g.View("scores"));
  const MatrixView mask = g.View("softmax_mask");
  for (int64_t i = 0; i < scores.size(); ++i) {
    if (mask.data[i] != 0.0f) scores.data()[i] = -std::numeric_limits<float>::infinity();
  }
  SoftmaxRows(&scores);
  ExpectClose("torch.softmax with -inf entries", scores.view(), g.View("softmax"), 1e-5);
}

TEST(SoftmaxTest, FullyMaskedRowIsZerosNotNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> row = {-inf, -inf, -inf};
  SoftmaxInPlace(row);
  EXPECT_EQ(row, std::vector<float>({0.0f, 0.0f, 0.0f}));
}

TEST(SoftmaxTest, HugeScoresDoNotOverflow) {
  std::vector<float> row = {1000.0f, 1000.0f, -1000.0f};  // exp(1000) overflows without the max subtraction
  SoftmaxInPlace(row);
  EXPECT_FLOAT_EQ(row[0], 0.5f);
  EXPECT_FLOAT_EQ(row[1], 0.5f);
  EXPECT_EQ(row[2], 0.0f);
}

}  // namespace
}  // namespace tokvec
