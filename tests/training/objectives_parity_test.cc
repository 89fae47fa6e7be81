// The mlm and simcse objectives on --lines batches against PyTorch 1.13 (tests/data/training/objectives.safetensors,
// written by scripts/gen_training_goldens.py, which reimplements tokvec's MLM masking and dropout masks so that
// torch sees exactly tokvec's batch): the masked batch itself, the loss and every parameter's gradient, ≤ 1e-5.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "embeddings/safetensors.h"
#include "gtest/gtest.h"
#include "tests/training/golden_testutil.h"
#include "training/contrastive.h"
#include "training/gpt2_model.h"
#include "training/line_examples.h"
#include "training/train_step.h"

namespace tokvec::training {
namespace {

class ObjectivesParityTest : public GoldenTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenGolden("objectives.safetensors"));
  }
  std::vector<int32_t> Ids(const std::string& name) {
    std::vector<int32_t> ids;
    for (float v : Tensor(name)) ids.push_back(static_cast<int32_t>(v));
    return ids;
  }
  std::unique_ptr<Gpt2Model> Load(const std::string& name) {
    auto model = Gpt2Model::Load(kGoldenDir + "/" + name);
    EXPECT_TRUE(model.ok()) << model.status();
    return model.ok() ? std::move(*model) : nullptr;
  }
  // Max |ours - torch| over every parameter gradient, each tensor within 1e-5.
  double MaxGradDiff(const Gpt2Model& model, const std::string& prefix) {
    double worst = 0.0;
    for (const ParameterInfo& info : model.parameters()) {
      const std::vector<float> expected = Tensor(prefix + info.name);
      EXPECT_EQ(static_cast<int64_t>(expected.size()), info.size) << info.name;
      double tensor_worst = 0.0;
      for (int64_t i = 0; i < info.size && i < static_cast<int64_t>(expected.size()); ++i) {
        tensor_worst = std::max(tensor_worst, std::abs(static_cast<double>(model.grads()[info.offset + i]) -
                                                       expected[static_cast<size_t>(i)]));
      }
      EXPECT_LE(tensor_worst, 1e-5) << prefix << info.name;
      worst = std::max(worst, tensor_worst);
    }
    return worst;
  }

};

TEST_F(ObjectivesParityTest, MlmLineBatchIsTheMaskingTorchSawAndLossAndGradientsMatch) {
  std::unique_ptr<Gpt2Model> model = Load("tiny_encoder");
  ASSERT_NE(model, nullptr);
  const int64_t T = static_cast<int64_t>(Meta("T"));
  const std::vector<int32_t> padded = Ids("mlm.lines"), lengths = Ids("mlm.lengths");
  std::vector<std::vector<int32_t>> lines;
  for (size_t r = 0; r < lengths.size(); ++r) {
    lines.emplace_back(padded.begin() + static_cast<int64_t>(r) * T,
                       padded.begin() + static_cast<int64_t>(r) * T + lengths[r]);
  }
  const LineExamples examples = LineExamples::FromLines(lines);
  const int64_t B = examples.size();
  // Rows first_row .. first_row + B - 1 read examples 0 .. B - 1 in order (first_row is a multiple of B).
  const MicroBatch batch = LineBatch(examples, LineObjective::kMlm, static_cast<int64_t>(Meta("mlm_first_row")), B, T,
                                     /*shuffle=*/false, 0, /*pad_id=*/0, static_cast<int32_t>(Meta("mlm_mask_id")),
                                     model->config().vocab_size, static_cast<uint64_t>(Meta("mlm_seed")));
  EXPECT_EQ(batch.inputs, Ids("mlm.inputs"));
  EXPECT_EQ(batch.targets, Ids("mlm.targets"));
  EXPECT_EQ(batch.key_lengths, lengths);
  model->ZeroGrad();
  auto loss = model->ForwardBackward(batch.inputs, batch.targets, B, T, 1.0f, 2, 0, batch.key_lengths);
  ASSERT_TRUE(loss.ok()) << loss.status();
  EXPECT_NEAR(loss->mean(), Tensor("mlm.loss")[0], 1e-5);
  const double worst = MaxGradDiff(*model, "mlm.grad.");
  std::printf("mlm on a --lines batch: loss %.7f (torch %.7f), max gradient diff %.3g\n", loss->mean(),
              Tensor("mlm.loss")[0], worst);
  RecordProperty("max_grad_diff", std::to_string(worst));
}


TEST_F(ObjectivesParityTest, SimcseLossAndEveryGradientMatchAutogradWithTokvecsDropoutMasks) {
  for (const auto& [kind, folder, pooling] : {std::tuple{"gpt2", "tiny_gpt2", Pooling::kLast},
                                              std::tuple{"encoder", "tiny_encoder", Pooling::kMean}}) {
    SCOPED_TRACE(kind);
    std::unique_ptr<Gpt2Model> model = Load(folder);
    ASSERT_NE(model, nullptr);
    const std::string prefix = std::string("simcse.") + kind + ".";
    const std::vector<int32_t> inputs = Ids(prefix + "inputs"), lengths = Ids(prefix + "lengths");
    const int64_t T = static_cast<int64_t>(Meta("T")), rows = static_cast<int64_t>(lengths.size());
    MicroBatch batch{.inputs = inputs, .B = rows, .T = T, .key_lengths = lengths, .pairs = rows / 2};
    model->SetDropout(static_cast<float>(Meta("simcse_dropout")));
    const SimcseSettings settings{.pooling = pooling, .temperature = static_cast<float>(Meta("simcse_temperature"))};
    for (int threads : {1, 3}) {
      model->ZeroGrad();
      auto loss = MicroBatchForwardBackward(*model, batch, 1.0f, threads,
                                            static_cast<uint64_t>(Meta("simcse_dropout_seed")), settings);
      ASSERT_TRUE(loss.ok()) << loss.status();
      EXPECT_NEAR(loss->mean(), Tensor(prefix + "loss")[0], 1e-5);
      const double worst = MaxGradDiff(*model, prefix + "grad.");
      std::printf("simcse %s (%d threads): loss %.7f (torch %.7f), max gradient diff %.3g\n", kind, threads,
                  loss->mean(), Tensor(prefix + "loss")[0], worst);
    }
  }
}

// A Hugging Face RoBERTa (RobertaForMaskedLM layout) trained through its MLM head: tokvec converts nn.Linear weights
// and q/k/v into its own buffers (training/roberta_layout.h) and back, so the gradients it reports in the
// checkpoint's layout must be autograd's, name for name.
TEST_F(ObjectivesParityTest, RobertaMlmLossAndEveryGradientMatchAutograd) {
  std::unique_ptr<Gpt2Model> model = Load("tiny_roberta");
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(model->head_initialized());
  const std::vector<int32_t> inputs = Ids("roberta.inputs"), targets = Ids("roberta.targets"),
                             lengths = Ids("roberta.lengths");
  const int64_t T = static_cast<int64_t>(Meta("T")), B = static_cast<int64_t>(lengths.size());
  for (int threads : {1, 3}) {
    model->ZeroGrad();
    auto loss = model->ForwardBackward(inputs, targets, B, T, 1.0f, threads, 0, lengths);
    ASSERT_TRUE(loss.ok()) << loss.status();
    EXPECT_NEAR(loss->mean(), Tensor("roberta.loss")[0], 1e-5);
    double worst = 0.0;
    int compared = 0;
    for (const HfTensor& grad : model->CheckpointTensors(model->grads())) {
      const std::vector<float> expected = Tensor("roberta.grad." + grad.name);
      ASSERT_EQ(expected.size(), grad.values.size()) << grad.name;
      double tensor_worst = 0.0;
      for (size_t i = 0; i < expected.size(); ++i) {
        tensor_worst = std::max(tensor_worst, std::abs(static_cast<double>(grad.values[i]) - expected[i]));
      }
      EXPECT_LE(tensor_worst, 1e-5) << grad.name;
      worst = std::max(worst, tensor_worst);
      ++compared;
    }
    EXPECT_EQ(compared, 5 + 2 * 16 + 5);  // every tensor of the checkpoint
    std::printf("roberta mlm (%d threads): loss %.7f (torch %.7f), max gradient diff %.3g over %d tensors\n",
                threads, loss->mean(), Tensor("roberta.loss")[0], worst, compared);
  }
  // Saved, the weights are the checkpoint's bytes again (the layout conversion is exact both ways).
  const std::string saved = ::testing::TempDir() + "/roberta_roundtrip.safetensors";
  ASSERT_TRUE(model->Save(saved).ok());
  auto original = SafetensorsFile::Open(kGoldenDir + "/tiny_roberta/model.safetensors");
  auto round = SafetensorsFile::Open(saved);
  ASSERT_TRUE(original.ok() && round.ok());
  for (const HfTensor& t : model->CheckpointTensors(model->params())) {
    auto a = (*original)->ReadFloat32(t.name);
    auto b = (*round)->ReadFloat32(t.name);
    ASSERT_TRUE(a.ok() && b.ok()) << t.name;
    EXPECT_EQ(a->shape, b->shape) << t.name;
    EXPECT_EQ(std::vector<float>(a->data, a->data + a->num_elements()),
              std::vector<float>(b->data, b->data + b->num_elements())) << t.name;
  }
}

}  // namespace
}  // namespace tokvec::training
