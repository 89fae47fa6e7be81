// sentence-transformers Dense modules after the pooling, against PyTorch (tests/attention/testdata/hf_bert_dense and
// hf_dense_reference.json from scripts/gen_hf_checkpoints.py: cls pooling, Dense 32 -> 24 with Tanh (F32 weights),
// Dense 24 -> 16 with Identity and no bias (F16 weights), Normalize), and the errors a malformed module gives.
#include "pipeline/sentence_dense.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

TEST(SentenceDenseTest, PooledVectorsMatchTorchThroughTwoDenseModules) {
  const nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_dense_reference.json"));
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_bert_dense");
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<PoolingChoice> choice = ChoosePooling(*dir, "auto", /*normalize=*/false);
  ASSERT_TRUE(choice.ok()) << choice.status();
  ASSERT_NE(choice->dense, nullptr);
  EXPECT_EQ(choice->dense->size(), 2u);
  EXPECT_EQ(choice->pooling, Pooling::kCls);
  EXPECT_TRUE(choice->normalize);
  EXPECT_EQ(OutputWidth(*dir, *choice), 16);
  const std::vector<std::string> texts = reference["texts"].get<std::vector<std::string>>();
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  for (int threads : {1, 2}) {
    absl::StatusOr<std::vector<TextVectors>> out = EmbedTexts(
        *dir, views, {.pooling = choice->pooling, .normalize = choice->normalize, .dense = choice->dense,
                      .threads = threads});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), texts.size());
    double worst = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      const std::vector<float> expected = reference["pooled"][i].get<std::vector<float>>();
      ASSERT_EQ((*out)[i].vectors.rows(), 1);
      ASSERT_EQ((*out)[i].vectors.cols(), 16);
      for (size_t k = 0; k < expected.size(); ++k) {
        worst = std::max(worst, static_cast<double>(std::fabs((*out)[i].vectors.data()[k] - expected[k])));
      }
    }
    std::printf("hf_bert_dense pooled + 2 Dense + Normalize, %d threads: max |tokvec - torch| = %.3g\n", threads,
                worst);
    EXPECT_LT(worst, 1e-5);
  }
}

TEST(SentenceDenseTest, AnExplicitPoolingLeavesTheDenseModulesOut) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_bert_dense");
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<PoolingChoice> choice = ChoosePooling(*dir, "cls", /*normalize=*/false);
  ASSERT_TRUE(choice.ok()) << choice.status();
  EXPECT_EQ(choice->dense, nullptr);
  EXPECT_EQ(OutputWidth(*dir, *choice), 32);
}

TEST(SentenceDenseTest, ActivationsByClassName) {
  EXPECT_EQ(*ParseDenseActivation("torch.nn.modules.activation.Tanh"), DenseActivation::kTanh);
  EXPECT_EQ(*ParseDenseActivation("torch.nn.modules.linear.Identity"), DenseActivation::kIdentity);
  EXPECT_EQ(*ParseDenseActivation("GELU"), DenseActivation::kGelu);
  absl::StatusOr<DenseActivation> bad = ParseDenseActivation("torch.nn.modules.activation.Softplus");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'torch.nn.modules.activation.Softplus'"));
}

TEST(SentenceDenseTest, ApplyComputesActOfAffine) {
  SentenceDense dense{.folder = "x", .in_features = 2, .out_features = 2, .weight = {1, 2, -3, 0.5f},
                      .bias = {0.25f, -1}, .activation = DenseActivation::kRelu};
  absl::StatusOr<std::vector<float>> y = ApplyDense(dense, std::vector<float>{1, 2});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_FLOAT_EQ((*y)[0], 5.25f);  // 1 + 4 + 0.25
  EXPECT_FLOAT_EQ((*y)[1], 0.0f);   // relu(-3 + 1 - 1)
  EXPECT_FALSE(ApplyDense(dense, std::vector<float>{1, 2, 3}).ok());
}

// A copy of hf_bert_dense whose files a test may break.
class BrokenDenseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tokvec_dense_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::copy(kTestdata + "/hf_bert_dense", dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Rewrite(const std::string& name, const nlohmann::json& value) {
    ASSERT_TRUE(WriteFileAtomically((dir_ / name).string(), value.dump()).ok());
  }
  std::string LoadError() {
    absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(dir_.string());
    EXPECT_FALSE(dir.ok());
    return dir.ok() ? "" : std::string(dir.status().message());
  }
  nlohmann::json Config(const std::string& folder) {
    return nlohmann::json::parse(*ReadFile((dir_ / folder / "config.json").string()));
  }
  fs::path dir_;
};

TEST_F(BrokenDenseTest, WidthThatDoesNotFollowThePooling) {
  nlohmann::json config = Config("2_Dense");
  config["in_features"] = 30;
  Rewrite("2_Dense/config.json", config);
  EXPECT_THAT(LoadError(), HasSubstr("has shape [24, 32]; config.json's in_features and out_features make it"));
}

TEST_F(BrokenDenseTest, ChainedWidthsMustAgree) {
  // The second layer's tensors still say 24 in; its config says 24 too, but the first now gives 20.
  fs::remove_all(dir_ / "3_Dense");
  fs::copy(dir_ / "2_Dense", dir_ / "3_Dense", fs::copy_options::recursive);  // 32 -> 24 again, after 32 -> 24
  EXPECT_THAT(LoadError(), HasSubstr("takes 32 values (in_features) but gets vectors of 24 (the previous Dense"));
}

TEST_F(BrokenDenseTest, UnknownActivation) {
  nlohmann::json config = Config("2_Dense");
  config["activation_function"] = "torch.nn.modules.activation.Softplus";
  Rewrite("2_Dense/config.json", config);
  EXPECT_THAT(LoadError(), HasSubstr("activation 'torch.nn.modules.activation.Softplus' is not supported"));
}

TEST_F(BrokenDenseTest, MissingBiasTensor) {
  nlohmann::json config = Config("3_Dense");
  config["bias"] = true;
  Rewrite("3_Dense/config.json", config);
  EXPECT_THAT(LoadError(), HasSubstr("has no tensor 'linear.bias' (the Dense layer)"));
}

TEST_F(BrokenDenseTest, PickleWeightsAreRefusedWithHowToConvert) {
  fs::rename(dir_ / "2_Dense" / "model.safetensors", dir_ / "2_Dense" / "pytorch_model.bin");
  EXPECT_THAT(LoadError(), HasSubstr("only safetensors is read"));
}

TEST_F(BrokenDenseTest, ModulesAfterNormalizeAndDenseBeforePooling) {
  nlohmann::json modules = nlohmann::json::parse(*ReadFile((dir_ / "modules.json").string()));
  nlohmann::json reordered = {modules[0], modules[1], modules[4], modules[2]};
  Rewrite("modules.json", reordered);
  EXPECT_THAT(LoadError(), HasSubstr("follows the Normalize module"));
  Rewrite("modules.json", nlohmann::json{modules[0], modules[2], modules[1]});
  EXPECT_THAT(LoadError(), HasSubstr("a Dense module before the Pooling module"));
  modules[2]["type"] = "sentence_transformers.models.LayerNorm";
  Rewrite("modules.json", modules);
  EXPECT_THAT(LoadError(), HasSubstr("module type 'sentence_transformers.models.LayerNorm' is not supported"));
}

}  // namespace
}  // namespace tokvec
