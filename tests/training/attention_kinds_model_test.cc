// Training models whose layers use other kinds of attention (config "attention", docs/attention_kinds.md): every
// parameter's gradient (Linformer's E and F included) against a finite difference of the loss, with and without
// dropout and key padding; the training forward pass against inference (models/model.h Model::Forward, what
// embed and attend run: a separate implementation of each kind); the same bits for any thread count.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "attention/attention_kind.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "models/model.h"
#include "models/model_config.h"
#include "tests/training/model_testutil.h"
#include "training/gpt2_model.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

constexpr int64_t kVocab = 29, kT = 10, kMaxLen = 12;

struct KindsCase {
  const char* name;
  Architecture arch;
  std::vector<std::string> kinds;  // one per layer
};

// Each kind in a causal (gpt2) and a bidirectional (encoder) model, two kinds per model so that the per-layer
// binding is exercised too. Sizes make the patterns non-trivial at T = 10: windows of 3-5, blocks of 2.
const KindsCase kCases[] = {
    {"gpt2_window_longformer", Architecture::kGpt2, {"window:3", "longformer:3,1"}},
    {"gpt2_bigbird_performer", Architecture::kGpt2, {"bigbird:2,1,1", "performer:8"}},
    {"gpt2_linear_full", Architecture::kGpt2, {"linear", "full"}},
    {"encoder_linformer_bigbird", Architecture::kEncoder, {"linformer:4", "bigbird:2,1,1"}},
    {"encoder_performer_linear", Architecture::kEncoder, {"performer:8", "linear"}},
    {"encoder_longformer_window", Architecture::kEncoder, {"longformer:3,1", "window:4"}},
};

ModelConfig CaseConfig(const KindsCase& c) {
  ModelConfig config = TinyConfig(kVocab, 8, 2, static_cast<int64_t>(c.kinds.size()), kMaxLen,
                                  c.arch == Architecture::kEncoder ? Activation::kGeluExact : Activation::kGeluTanh);
  if (c.arch == Architecture::kEncoder) {
    config.arch = Architecture::kEncoder;
    config.model_type = "encoder";
  }
  for (const std::string& text : c.kinds) {
    absl::StatusOr<AttentionKind> kind = ParseAttentionKind(text);
    EXPECT_TRUE(kind.ok()) << kind.status();
    config.attention.push_back(kind.ok() ? *kind : AttentionKind{});
  }
  config.attention_seed = 5;
  return config;
}

struct Batch {
  std::vector<int32_t> inputs, targets, lengths;
};

Batch RandomBatch(int64_t B, bool padded, unsigned seed) {
  std::mt19937 rng(seed);
  Batch batch;
  for (int64_t i = 0; i < B * kT; ++i) {
    batch.inputs.push_back(static_cast<int32_t>(rng() % kVocab));
    batch.targets.push_back(i % 4 == 1 ? kIgnoreIndex : static_cast<int32_t>(rng() % kVocab));
  }
  if (padded) {
    batch.lengths = {static_cast<int32_t>(kT), 7};
    for (int64_t t = 7; t < kT; ++t) batch.targets[kT + t] = kIgnoreIndex;
  }
  return batch;
}

class AttentionKindsModelTest : public ::testing::TestWithParam<KindsCase> {};

TEST_P(AttentionKindsModelTest, EveryParameterGradientMatchesFiniteDifference) {
  const KindsCase& c = GetParam();
  auto model = RandomModel(CaseConfig(c), 17);
  ASSERT_NE(model, nullptr);
  for (size_t l = 0; l < c.kinds.size(); ++l) {
    const bool linformer = c.kinds[l].rfind("linformer", 0) == 0;
    EXPECT_EQ(model->Find("h." + std::to_string(l) + ".attn.linformer_e") != nullptr, linformer) << c.kinds[l];
  }
  const bool encoder = c.arch == Architecture::kEncoder;
  for (float dropout : {0.0f, 0.2f}) {
    model->SetDropout(dropout);
    const Batch batch = RandomBatch(2, /*padded=*/encoder, 23);
    const uint64_t seed = 31;
    model->ZeroGrad();
    auto loss = model->ForwardBackward(batch.inputs, batch.targets, 2, kT, 1.0f, 2, seed, batch.lengths);
    ASSERT_TRUE(loss.ok()) << loss.status();
    ASSERT_TRUE(std::isfinite(loss->sum));
    const std::vector<float> grads = model->grads();
    auto mean_loss = [&] {
      return model->ForwardBackward(batch.inputs, batch.targets, 2, kT, 1.0f, 1, seed, batch.lengths)->mean();
    };
    const int checked = ExpectParameterGradients(*model, grads, 5, mean_loss,
                                                 fmt::format("{} dropout {}", c.name, dropout));
    EXPECT_GT(checked, 100);
  }
}

TEST_P(AttentionKindsModelTest, SameBitsForAnyThreadCount) {
  const KindsCase& c = GetParam();
  const Batch batch = RandomBatch(2, c.arch == Architecture::kEncoder, 41);
  std::vector<float> reference;
  double reference_loss = 0.0;
  for (int threads : {1, 2, 3}) {
    auto model = RandomModel(CaseConfig(c), 19);
    model->SetDropout(0.1f);
    model->ZeroGrad();
    auto loss = model->ForwardBackward(batch.inputs, batch.targets, 2, kT, 1.0f, threads, 7, batch.lengths);
    ASSERT_TRUE(loss.ok()) << loss.status();
    if (reference.empty()) {
      reference = model->grads();
      reference_loss = loss->sum;
      continue;
    }
    EXPECT_EQ(loss->sum, reference_loss) << c.name << ", " << threads << " threads";
    EXPECT_EQ(std::memcmp(model->grads().data(), reference.data(), reference.size() * sizeof(float)), 0)
        << c.name << ", " << threads << " threads";
  }
}

// What fit trains is what embed runs: the training forward pass's hidden states (after ln_f for gpt2, the last
// block for the encoder) equal inference's on the same weights, written to and read from a model directory.
TEST_P(AttentionKindsModelTest, TrainingForwardEqualsInference) {
  const KindsCase& c = GetParam();
  const ModelConfig config = CaseConfig(c);
  auto model = RandomModel(config, 29);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tokvec_kinds_model_" + std::string(c.name));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(model->Save((dir / "model.safetensors").string()).ok());
  std::ofstream(dir / "config.json") << ModelConfigToJson(config);
  auto inference = Model::Load((dir / "config.json").string(), (dir / "model.safetensors").string());
  ASSERT_TRUE(inference.ok()) << inference.status();
  const Batch batch = RandomBatch(2, /*padded=*/false, 43);
  const int64_t C = config.d_model;
  std::vector<float> hidden;
  auto captured = model->EvaluateHidden(batch.inputs, 2, kT, 2, {}, [&](const float* h, float*) {
    hidden.assign(h, h + 2 * kT * C);
    return absl::StatusOr<LossSum>(LossSum{});
  });
  ASSERT_TRUE(captured.ok()) << captured.status();
  double worst = 0.0;
  for (int64_t b = 0; b < 2; ++b) {
    std::vector<uint32_t> ids(batch.inputs.begin() + b * kT, batch.inputs.begin() + (b + 1) * kT);
    auto out = (*inference)->Forward(ids, {.threads = 1});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t t = 0; t < kT; ++t) {
      for (int64_t j = 0; j < C; ++j) {
        worst = std::max(worst, std::abs(static_cast<double>(out->hidden.at(t, j)) - hidden[(b * kT + t) * C + j]));
      }
    }
  }
  std::printf("%s: max |training forward - inference| = %.3g\n", c.name, worst);
  EXPECT_LE(worst, 1e-5) << c.name;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Kinds, AttentionKindsModelTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<KindsCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tokvec::training
