// WriteRandomWeights (models/random_weights.h) on a tiny GPT-2 config: GPT-2's tensor names and shapes, its
// init (biases 0, LayerNorm gamma 1, stds 0.02 and 0.02/sqrt(2L)), a seed always giving the same file,
// token rows replacing only their wte rows, and the size limit's error.
#include "models/random_weights.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "embeddings/safetensors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;

ModelConfig TinyGpt2() {
  ModelConfig config;
  config.arch = Architecture::kGpt2;
  config.model_type = "gpt2";
  config.vocab_size = 50;
  config.d_model = 8;
  config.n_heads = 2;
  config.n_layers = 2;
  config.d_ff = 16;
  config.max_len = 6;
  return config;
}

class RandomWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tokvec_random_weights_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

double Std(const FloatTensor& t) {
  double sum = 0, squares = 0;
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    sum += t.data[i];
    squares += static_cast<double>(t.data[i]) * t.data[i];
  }
  const double mean = sum / static_cast<double>(n);
  return std::sqrt(squares / static_cast<double>(n) - mean * mean);
}

TEST_F(RandomWeightsTest, Gpt2NamesShapesAndInit) {
  ASSERT_TRUE(WriteRandomWeights(TinyGpt2(), 1, {}, Path("a.safetensors")).ok());
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::Open(Path("a.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status();
  std::vector<std::string> names;
  for (const SafetensorsEntry& entry : (*file)->entries()) names.push_back(entry.name);
  EXPECT_EQ(names.size(), 2 + 2 * 12 + 2u);  // wte, wpe, 12 per layer, ln_f
  EXPECT_THAT((*file)->Find("wte.weight")->shape, ::testing::ElementsAre(50, 8));
  EXPECT_THAT((*file)->Find("wpe.weight")->shape, ::testing::ElementsAre(6, 8));
  EXPECT_THAT((*file)->Find("h.1.attn.c_attn.weight")->shape, ::testing::ElementsAre(8, 24));
  EXPECT_THAT((*file)->Find("h.1.mlp.c_proj.weight")->shape, ::testing::ElementsAre(16, 8));
  EXPECT_EQ((*file)->metadata().at("tokvec_seed"), "1");
  absl::StatusOr<FloatTensor> gamma = (*file)->ReadFloat32("h.0.ln_1.weight");
  absl::StatusOr<FloatTensor> bias = (*file)->ReadFloat32("h.0.mlp.c_fc.bias");
  ASSERT_TRUE(gamma.ok() && bias.ok());
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(gamma->data[i], 1.0f);
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(bias->data[i], 0.0f);
  absl::StatusOr<FloatTensor> wte = (*file)->ReadFloat32("wte.weight");  // 400 samples of normal(0, 0.02)
  ASSERT_TRUE(wte.ok());
  EXPECT_NEAR(Std(*wte), 0.02, 0.003);
  absl::StatusOr<FloatTensor> proj = (*file)->ReadFloat32("h.0.mlp.c_proj.weight");  // normal(0, 0.01): L = 2
  ASSERT_TRUE(proj.ok());
  EXPECT_NEAR(Std(*proj), 0.01, 0.003);
}

TEST_F(RandomWeightsTest, SameSeedSameBytesAndTokenRowsReplaceOnlyTheirRows) {
  ASSERT_TRUE(WriteRandomWeights(TinyGpt2(), 7, {}, Path("a.safetensors")).ok());
  ASSERT_TRUE(WriteRandomWeights(TinyGpt2(), 7, {}, Path("b.safetensors")).ok());
  EXPECT_EQ(*ReadFile(Path("a.safetensors")), *ReadFile(Path("b.safetensors")));
  const std::vector<float> row = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_TRUE(WriteRandomWeights(TinyGpt2(), 7, {{3, row.data()}}, Path("c.safetensors")).ok());
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> a = SafetensorsFile::Open(Path("a.safetensors"));
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> c = SafetensorsFile::Open(Path("c.safetensors"));
  ASSERT_TRUE(a.ok() && c.ok());
  for (const SafetensorsEntry& entry : (*a)->entries()) {
    absl::StatusOr<FloatTensor> x = (*a)->ReadFloat32(entry.name), y = (*c)->ReadFloat32(entry.name);
    ASSERT_TRUE(x.ok() && y.ok()) << entry.name;
    for (int64_t i = 0; i < x->num_elements(); ++i) {
      const bool replaced = entry.name == "wte.weight" && i / 8 == 3;
      EXPECT_EQ(y->data[i], replaced ? row[static_cast<size_t>(i % 8)] : x->data[i]) << entry.name << " " << i;
    }
  }
}

TEST_F(RandomWeightsTest, RefusesModelsPastSixteenGigabytes) {
  ModelConfig config = TinyGpt2();
  config.d_model = 65536;
  config.d_ff = 4 * 65536;
  config.n_layers = 100;
  absl::Status status = WriteRandomWeights(config, 1, {}, Path("big.safetensors"));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("tokvec init stops at 16 GB"));
  EXPECT_FALSE(fs::exists(Path("big.safetensors")));
}

}  // namespace
}  // namespace tokvec
