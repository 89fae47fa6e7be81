// A small random GPT-2 for the training tests, built in memory (no files).
#ifndef TOKVEC_TESTS_TRAINING_MODEL_TESTUTIL_H_
#define TOKVEC_TESTS_TRAINING_MODEL_TESTUTIL_H_

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "embeddings/safetensors.h"
#include "gtest/gtest.h"
#include "models/model_config.h"
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

// For `samples` elements of every parameter tensor: grads against (loss(θ + eps) - loss(θ - eps)) / 2 eps.
// Returns how many elements were checked.
inline int ExpectParameterGradients(Gpt2Model& model, const std::vector<float>& grads, int64_t samples,
                                    const std::function<double()>& loss, const std::string& what) {
  int checked = 0;
  for (const ParameterInfo& info : model.parameters()) {
    const int64_t stride = std::max<int64_t>(1, info.size / samples);
    for (int64_t k = 0; k < info.size; k += stride) {
      float& p = model.params()[info.offset + k];
      const float saved = p;
      const double eps = 1e-2;
      p = saved + static_cast<float>(eps);
      const double plus = loss();
      p = saved - static_cast<float>(eps);
      const double minus = loss();
      p = saved;
      const double fd = (plus - minus) / (2 * eps);
      EXPECT_NEAR(grads[info.offset + k], fd, 2e-3 + 2e-2 * std::abs(fd)) << what << " " << info.name << "[" << k
                                                                          << "]";
      ++checked;
    }
  }
  return checked;
}

}  // namespace tokvec::training

#endif  // TOKVEC_TESTS_TRAINING_MODEL_TESTUTIL_H_
