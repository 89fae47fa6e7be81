// The whole GPT-2 backward pass: finite differences of the loss for samples of every parameter tensor, the
// same bits for any thread count, and the loss of a known case.
#include "training/gpt2_model.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/training/model_testutil.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

struct Batch {
  std::vector<int32_t> inputs, targets;
};

Batch RandomBatch(int64_t B, int64_t T, int64_t V, unsigned seed) {
  std::mt19937 rng(seed);
  Batch batch;
  for (int64_t i = 0; i < B * T; ++i) {
    batch.inputs.push_back(static_cast<int32_t>(rng() % V));
    batch.targets.push_back(i % 5 == 3 ? kIgnoreIndex : static_cast<int32_t>(rng() % V));
  }
  return batch;
}

TEST(Gpt2ModelTest, EveryParameterGradientMatchesFiniteDifference) {
  for (Activation act : {Activation::kGeluTanh, Activation::kGeluExact}) {
    auto model = RandomModel(TinyConfig(23, 8, 2, 2, 6, act), 3);
    const Batch batch = RandomBatch(2, 5, 23, 4);
    model->ZeroGrad();
    auto loss = model->ForwardBackward(batch.inputs, batch.targets, 2, 5, 1.0f, 2);
    ASSERT_TRUE(loss.ok()) << loss.status();
    ExpectParameterGradients(*model, model->grads(), 6, [&] {
      return model->Evaluate(batch.inputs, batch.targets, 2, 5, 1)->mean();
    }, std::string(ActivationName(act)));
  }
}

TEST(Gpt2ModelTest, DropoutGradientMatchesFiniteDifferenceOfTheSameMasks) {
  auto model = RandomModel(TinyConfig(23, 8, 2, 2, 6), 9);
  model->SetDropout(0.3f);
  const Batch batch = RandomBatch(2, 6, 23, 10);
  const uint64_t seed = 77;
  model->ZeroGrad();
  auto loss = model->ForwardBackward(batch.inputs, batch.targets, 2, 6, 1.0f, 2, seed);
  ASSERT_TRUE(loss.ok()) << loss.status();
  const std::vector<float> grads = model->grads();
  // The masks depend on the seed: another seed gives another loss; no dropout another still.
  EXPECT_NE(model->ForwardBackward(batch.inputs, batch.targets, 2, 6, 1.0f, 1, seed + 1)->sum, loss->sum);
  EXPECT_NE(model->Evaluate(batch.inputs, batch.targets, 2, 6, 1)->sum, loss->sum);
  EXPECT_EQ(model->ForwardBackward(batch.inputs, batch.targets, 2, 6, 1.0f, 3, seed)->sum, loss->sum);
  ExpectParameterGradients(*model, grads, 4, [&] {
    return model->ForwardBackward(batch.inputs, batch.targets, 2, 6, 1.0f, 1, seed)->mean();
  }, "dropout");
}

TEST(Gpt2ModelTest, EncoderWithKeyPaddingMatchesFiniteDifference) {
  ModelConfig config = TinyConfig(23, 8, 2, 2, 6, Activation::kGeluExact);
  config.arch = Architecture::kEncoder;
  config.model_type = "encoder";
  auto model = RandomModel(config, 12);
  model->SetDropout(0.2f);
  Batch batch = RandomBatch(2, 6, 23, 13);
  const std::vector<int32_t> lengths = {6, 4};
  for (int64_t t = 4; t < 6; ++t) batch.targets[6 + t] = kIgnoreIndex;  // padding predicts nothing
  model->ZeroGrad();
  auto loss = model->ForwardBackward(batch.inputs, batch.targets, 2, 6, 1.0f, 2, 21, lengths);
  ASSERT_TRUE(loss.ok()) << loss.status();
  const std::vector<float> grads = model->grads();
  ExpectParameterGradients(*model, grads, 4, [&] {
    return model->ForwardBackward(batch.inputs, batch.targets, 2, 6, 1.0f, 1, 21, lengths)->mean();
  }, "encoder");
  // Padding is invisible: changing a padded token changes nothing at the real positions of its row.
  std::vector<int32_t> targets_real(batch.targets.size(), kIgnoreIndex);
  for (int64_t t = 0; t < 4; ++t) targets_real[6 + t] = batch.targets[6 + t];
  const double before = model->Evaluate(batch.inputs, targets_real, 2, 6, 1, lengths)->sum;
  batch.inputs[6 + 5] = (batch.inputs[6 + 5] + 1) % 23;
  EXPECT_EQ(model->Evaluate(batch.inputs, targets_real, 2, 6, 1, lengths)->sum, before);
}

TEST(Gpt2ModelTest, SameBitsForAnyThreadCount) {
  // 2 x 40 = 80 rows (two row blocks), 3C = 96 columns (two column blocks), V = 300 (two vocabulary blocks).
  const ModelConfig config = TinyConfig(300, 32, 4, 2, 40);
  const Batch batch = RandomBatch(2, 40, 300, 5);
  std::vector<float> reference;
  double reference_loss = 0;
  for (int threads : {1, 2, 3, 8}) {
    auto model = RandomModel(config, 6);
    model->SetDropout(0.1f);
    model->ZeroGrad();
    auto loss = model->ForwardBackward(batch.inputs, batch.targets, 2, 40, 1.0f, threads, 11);
    ASSERT_TRUE(loss.ok()) << loss.status();
    if (reference.empty()) {
      reference = model->grads();
      reference_loss = loss->sum;
      continue;
    }
    EXPECT_EQ(loss->sum, reference_loss) << threads << " threads";
    EXPECT_EQ(std::memcmp(model->grads().data(), reference.data(), reference.size() * sizeof(float)), 0)
        << threads << " threads";
  }
}

TEST(Gpt2ModelTest, UniformModelLossIsLogV) {
  // With zero weights everywhere the logits are all equal: loss = ln V exactly as for a uniform guess.
  auto model = RandomModel(TinyConfig(31, 8, 2, 1, 4), 7);
  std::fill(model->params().begin(), model->params().end(), 0.0f);
  const Batch batch = RandomBatch(1, 4, 31, 8);
  auto loss = model->Evaluate(batch.inputs, batch.targets, 1, 4, 1);
  ASSERT_TRUE(loss.ok());
  EXPECT_NEAR(loss->mean(), std::log(31.0), 1e-6);
}

TEST(Gpt2ModelTest, BadBatchesAreErrors) {
  auto model = RandomModel(TinyConfig(31, 8, 2, 1, 4), 7);
  std::vector<int32_t> ids = {1, 2, 3, 4, 5};
  EXPECT_EQ(model->Evaluate(ids, ids, 1, 5, 1).status().code(), absl::StatusCode::kInvalidArgument);  // T > 4
  std::vector<int32_t> bad = {1, 2, 31, 0};
  EXPECT_EQ(model->Evaluate(bad, {1, 2, 3, 4}, 1, 4, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Evaluate({1, 2, 3, 4}, {1, 2, -5, 4}, 1, 4, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tokvec::training
