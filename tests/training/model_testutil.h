// A small random GPT-2 for the training tests, built in memory (no files).
#ifndef TOKVEC_TESTS_TRAINING_MODEL_TESTUTIL_H_
#define TOKVEC_TESTS_TRAINING_MODEL_TESTUTIL_H_

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "attention/model_config.h"
#include "embeddings/safetensors.h"
#include "gtest/gtest.h"
#include "training/gpt2_model.h"

namespace tokvec::training {

inline ModelConfig TinyConfig(int64_t V = 37, int64_t C = 16, int64_t H = 2, int64_t L = 2, int64_t T = 12,
                              Activation act = Activation::kGeluTanh) {
  ModelConfig config;
  config.arch = Architecture::kGpt2;
  config.model_type = "gpt2";
  config.vocab_size = V;
  config.d_model = C;
  config.n_heads = H;
  config.n_layers = L;
  config.d_ff = 4 * C;
  config.max_len = T;
  config.activation = act;
  return config;
}

// Every tensor uniform in [-0.5, 0.5) (LayerNorm weights around 1), so gradients are not tiny.
inline std::unique_ptr<Gpt2Model> RandomModel(const ModelConfig& config, unsigned seed) {
  std::vector<std::vector<float>> storage;
  std::vector<NamedTensor> tensors;
  for (const ParameterInfo& info : Gpt2Parameters(config)) {
    storage.emplace_back(static_cast<size_t>(info.size), 0.0f);
    tensors.push_back({info.name, info.shape, nullptr});
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const bool ln_weight = tensors[i].name.find("ln_") != std::string::npos &&
                           tensors[i].name.find(".weight") != std::string::npos;
    for (float& v : storage[i]) v = (ln_weight ? 1.0f : 0.0f) + uniform(rng);
    tensors[i].values = storage[i].data();
  }
  auto bytes = SerializeSafetensors(tensors, {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  auto file = SafetensorsFile::FromBytes(*bytes, "random.safetensors");
  EXPECT_TRUE(file.ok()) << file.status();
  auto model = Gpt2Model::FromWeights(config, **file);
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(*model);
}

}  // namespace tokvec::training

#endif  // TOKVEC_TESTS_TRAINING_MODEL_TESTUTIL_H_
