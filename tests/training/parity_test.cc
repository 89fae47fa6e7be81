// tokvec's GPT-2 training against PyTorch 1.13 (tests/data/training/, written by scripts/gen_training_goldens.py):
// the loss and every parameter's gradient from autograd, and the weights after five torch.optim.AdamW (and SGD)
// steps with gradient accumulation, clip_grad_norm_ and warmup + cosine, all within 1e-5.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "embeddings/safetensors.h"
#include "gtest/gtest.h"
#include "models/model.h"
#include "tests/training/golden_testutil.h"
#include "training/gpt2_model.h"
#include "training/optimizer.h"
#include "training/train_step.h"

namespace tokvec::training {
namespace {

class ParityTest : public GoldenTest {
 protected:
  void SetUp() override {
    auto model = Gpt2Model::Load(kGoldenDir + "/tiny_gpt2");
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = std::move(*model);
    ASSERT_NO_FATAL_FAILURE(OpenGolden("golden.safetensors"));
  }
  // Micro-batch (step, k) of the golden batches.
  MicroBatch Batch(int64_t step, int64_t k) {
    const int64_t B = static_cast<int64_t>(Meta("B")), T = static_cast<int64_t>(Meta("T"));
    const int64_t accum = static_cast<int64_t>(Meta("accum"));
    const std::vector<float> inputs = Tensor("batch.inputs"), targets = Tensor("batch.targets");
    MicroBatch batch{.B = B, .T = T};
    const int64_t begin = (step * accum + k) * B * T;
    for (int64_t i = begin; i < begin + B * T; ++i) {
      batch.inputs.push_back(static_cast<int32_t>(inputs[i]));
      batch.targets.push_back(static_cast<int32_t>(targets[i]));
    }
    return batch;
  }
  // Max |ours - torch| over every parameter of `buffer` against tensors "<prefix><name>". With skip_key_bias the
  // key third of c_attn.bias is left out: softmax is invariant to adding q·b_k to every score of a row, so its
  // gradient is exactly 0 and both sides hold only rounding noise (~5e-9); Adam divides that noise by its own
  // square root and moves those 2·16 values by ±lr·O(1) in torch as in tokvec, in directions neither can
  // reproduce. KeyBiasGradientIsRoundingNoise checks that premise.
  double MaxDiff(const std::vector<float>& buffer, const std::string& prefix, bool skip_key_bias = false) {
    const int64_t C = model_->config().d_model;
    double worst = 0.0;
    for (const ParameterInfo& info : model_->parameters()) {
      const std::vector<float> expected = Tensor(prefix + info.name);
      EXPECT_EQ(static_cast<int64_t>(expected.size()), info.size) << info.name;
      const bool key_bias = skip_key_bias && info.name.ends_with("attn.c_attn.bias");
      double tensor_worst = 0.0;
      for (int64_t i = 0; i < info.size && i < static_cast<int64_t>(expected.size()); ++i) {
        if (key_bias && i >= C && i < 2 * C) continue;
        tensor_worst = std::max(tensor_worst, std::abs(static_cast<double>(buffer[info.offset + i]) - expected[i]));
      }
      EXPECT_LE(tensor_worst, 1e-5) << prefix << info.name;
      worst = std::max(worst, tensor_worst);
    }
    return worst;
  }
  void RunSteps(const OptimizerOptions& options, double lr, const std::string& prefix, bool skip_key_bias) {
    const int64_t steps = static_cast<int64_t>(Meta("steps")), accum = static_cast<int64_t>(Meta("accum"));
    Optimizer optimizer(options, model_->parameters(), model_->params().size());
    const Schedule schedule{.kind = ScheduleKind::kCosine, .lr = lr, .warmup = static_cast<int64_t>(Meta("warmup")),
                            .total_steps = steps};
    const std::vector<float> losses = Tensor(prefix + "loss"), norms = Tensor(prefix + "grad_norm"),
                             lrs = Tensor(prefix + "lr");
    for (int64_t s = 0; s < steps; ++s) {
      std::vector<MicroBatch> batches;
      for (int64_t k = 0; k < accum; ++k) batches.push_back(Batch(s, k));
      auto result = TrainStep(*model_, optimizer, schedule, Meta("clip"), s, batches, 2);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->loss, losses[s], 1e-5) << "step " << s;
      EXPECT_NEAR(result->grad_norm, norms[s], 1e-5) << "step " << s;
      EXPECT_NEAR(result->lr, lrs[s], 1e-7 * lrs[s]) << "step " << s;  // stored as float32
    }
    const double worst = MaxDiff(model_->params(), prefix, skip_key_bias);
    std::printf("max |tokvec - torch| over every weight after %lld %s steps: %.3g\n", static_cast<long long>(steps),
                prefix.c_str(), worst);
    RecordProperty("max_weight_diff", std::to_string(worst));
  }

  std::unique_ptr<Gpt2Model> model_;
};

TEST_F(ParityTest, LossAndEveryGradientMatchAutograd) {
  const MicroBatch batch = Batch(0, 0);
  model_->ZeroGrad();
  auto loss = model_->ForwardBackward(batch.inputs, batch.targets, batch.B, batch.T, 1.0f, 2);
  ASSERT_TRUE(loss.ok()) << loss.status();
  EXPECT_NEAR(loss->mean(), Tensor("loss")[0], 1e-5);
  const double worst = MaxDiff(model_->grads(), "grad.");
  std::printf("max |tokvec - torch| over every gradient: %.3g\n", worst);
  RecordProperty("max_grad_diff", std::to_string(worst));
}

// Loads kGoldenDir/folder and checks the loss and every gradient on the golden batch "<prefix>.inputs" with key
// padding ("<prefix>.lengths") against autograd's; returns the model.
std::unique_ptr<Gpt2Model> ExpectKeyPaddedBatchMatchesAutograd(GoldenTest& golden, const std::string& folder,
                                                                const std::string& prefix) {
  auto loaded = Gpt2Model::Load(kGoldenDir + "/" + folder);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  Gpt2Model& model = **loaded;
  const std::vector<float> inputs = golden.Tensor(prefix + ".inputs"), targets = golden.Tensor(prefix + ".targets"),
                           lengths = golden.Tensor(prefix + ".lengths");
  const int64_t B = static_cast<int64_t>(lengths.size()), T = static_cast<int64_t>(inputs.size()) / B;
  MicroBatch batch{.B = B, .T = T};
  for (size_t i = 0; i < inputs.size(); ++i) {
    batch.inputs.push_back(static_cast<int32_t>(inputs[i]));
    batch.targets.push_back(static_cast<int32_t>(targets[i]));
  }
  std::vector<int32_t> key_lengths(lengths.begin(), lengths.end());
  model.ZeroGrad();
  auto loss = model.ForwardBackward(batch.inputs, batch.targets, B, T, 1.0f, 2, 0, key_lengths);
  EXPECT_TRUE(loss.ok()) << loss.status();
  if (!loss.ok()) return nullptr;
  EXPECT_NEAR(loss->mean(), golden.Tensor(prefix + ".loss")[0], 1e-5);
  double worst = 0.0;
  for (const ParameterInfo& info : model.parameters()) {
    const std::vector<float> expected = golden.Tensor(prefix + ".grad." + info.name);
    EXPECT_EQ(static_cast<int64_t>(expected.size()), info.size) << info.name;
    if (static_cast<int64_t>(expected.size()) != info.size) continue;
    double tensor_worst = 0.0;
    for (int64_t i = 0; i < info.size; ++i) {
      const double ours = model.grads()[info.offset + i];
      tensor_worst = std::max(tensor_worst, std::abs(ours - expected[i]));
    }
    EXPECT_LE(tensor_worst, 1e-5) << prefix << " " << info.name;
    worst = std::max(worst, tensor_worst);
  }
  std::printf("%s with key padding: max |tokvec - torch| over every gradient: %.3g\n", prefix.c_str(), worst);
  golden.RecordProperty("max_" + prefix + "_grad_diff", std::to_string(worst));
  return std::move(*loaded);
}

TEST_F(ParityTest, EncoderWithKeyPaddingMatchesAutograd) {
  ExpectKeyPaddedBatchMatchesAutograd(*this, "tiny_encoder", "encoder");
}

// Rotary positions (RoPE on q and k in every layer, no position table): training's gradients match autograd, and
// tokvec's inference (Model, what embed and attend run) gives torch's hidden states for the unpadded tokens.
TEST_F(ParityTest, RotaryModelsMatchAutogradAndInference) {
  for (const char* kind : {"gpt2", "encoder"}) {
    const std::string prefix = std::string("rotary_") + kind, folder = std::string("tiny_") + kind + "_rotary";
    std::unique_ptr<Gpt2Model> model = ExpectKeyPaddedBatchMatchesAutograd(*this, folder, prefix);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->Find("wpe.weight"), nullptr) << "a rotary model has no position table";
    auto inference = Model::Load(kGoldenDir + "/" + folder);
    ASSERT_TRUE(inference.ok()) << inference.status();
    const std::vector<float> inputs = Tensor(prefix + ".inputs"), lengths = Tensor(prefix + ".lengths"),
                             hidden = Tensor(prefix + ".hidden");
    const int64_t B = static_cast<int64_t>(lengths.size()), T = static_cast<int64_t>(inputs.size()) / B;
    const int64_t C = static_cast<int64_t>(hidden.size()) / (B * T);
    double worst = 0.0;
    for (int64_t b = 0; b < B; ++b) {
      std::vector<uint32_t> ids;
      for (int64_t t = 0; t < static_cast<int64_t>(lengths[b]); ++t) {
        ids.push_back(static_cast<uint32_t>(inputs[b * T + t]));
      }
      auto out = (*inference)->Forward(ids, {.threads = 2});
      ASSERT_TRUE(out.ok()) << out.status();
      for (int64_t t = 0; t < static_cast<int64_t>(ids.size()); ++t) {
        for (int64_t c = 0; c < C; ++c) {
          worst = std::max(worst, std::abs(static_cast<double>(out->hidden.at(t, c)) - hidden[(b * T + t) * C + c]));
        }
      }
    }
    EXPECT_LE(worst, 1e-5) << prefix;
    std::printf("%s inference: max |tokvec - torch| over the hidden states: %.3g\n", prefix.c_str(), worst);
  }
}

TEST_F(ParityTest, KeyBiasGradientIsRoundingNoise) {
  const MicroBatch batch = Batch(0, 0);
  model_->ZeroGrad();
  ASSERT_TRUE(model_->ForwardBackward(batch.inputs, batch.targets, batch.B, batch.T, 1.0f, 1).ok());
  const int64_t C = model_->config().d_model;
  for (int64_t l = 0; l < model_->config().n_layers; ++l) {
    const std::string name = "h." + std::to_string(l) + ".attn.c_attn.bias";
    const ParameterInfo* info = model_->Find(name);
    ASSERT_NE(info, nullptr);
    const std::vector<float> torch = Tensor("grad." + name);
    for (int64_t i = C; i < 2 * C; ++i) {
      EXPECT_LT(std::abs(model_->grads()[info->offset + i]), 1e-7) << name << "[" << i << "]";
      EXPECT_LT(std::abs(torch[i]), 1e-7) << name << "[" << i << "] (torch)";
    }
  }
}

TEST_F(ParityTest, FiveAdamWStepsMatchTorchOptim) {
  RunSteps({.kind = OptimizerKind::kAdamW, .beta1 = Meta("beta1"), .beta2 = Meta("beta2"), .eps = Meta("eps"),
            .weight_decay = Meta("weight_decay")},
           Meta("lr"), "adamw.", /*skip_key_bias=*/true);
}

TEST_F(ParityTest, FiveSgdMomentumStepsMatchTorchOptim) {
  RunSteps({.kind = OptimizerKind::kSgd, .weight_decay = Meta("weight_decay"), .momentum = Meta("momentum")},
           Meta("sgd_lr"), "sgd.", /*skip_key_bias=*/false);
}

}  // namespace
}  // namespace tokvec::training
