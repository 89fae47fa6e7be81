// sentence-transformers' Dense module: a linear layer and an activation applied to the pooled vector
// (LaBSE, the gtr / sentence-t5 family, and other models whose modules.json lists a Dense after the Pooling).
//
//   DIR/2_Dense/config.json        {"in_features": 768, "out_features": 768, "bias": true,
//                                   "activation_function": "torch.nn.modules.activation.Tanh"}
//   DIR/2_Dense/model.safetensors  linear.weight [out, in], linear.bias [out]
//
//   TOKVEC_ASSIGN_OR_RETURN(SentenceDense dense, LoadSentenceDense("DIR/2_Dense"));
//   std::vector<float> y = ApplyDense(dense, pooled);   // act(W·x + b), [out]
//
// Activations: Identity, Tanh, ReLU, GELU (exact, as torch.nn.GELU() with no arguments), Sigmoid, SiLU; any other
// class is InvalidArgument naming it. Weights may be F32, F16 or BF16; pytorch_model.bin (a pickle) is refused
// with how to convert it. The product accumulates in double, one output at a time, so the result does not
// depend on threads or batching.
#ifndef TOKVEC_PIPELINE_SENTENCE_DENSE_H_
#define TOKVEC_PIPELINE_SENTENCE_DENSE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tokvec {

enum class DenseActivation { kIdentity, kTanh, kRelu, kGelu, kSigmoid, kSilu };

// The class's last dotted component ("torch.nn.modules.activation.Tanh" -> Tanh) to an activation;
// InvalidArgument listing the supported ones otherwise.
absl::StatusOr<DenseActivation> ParseDenseActivation(std::string_view class_name);

struct SentenceDense {
  std::string folder;
  int64_t in_features = 0;
  int64_t out_features = 0;
  std::vector<float> weight;  // [out, in], row-major
  std::vector<float> bias;    // [out], empty without bias
  DenseActivation activation = DenseActivation::kTanh;
};

// Reads FOLDER/config.json and FOLDER/model.safetensors. Errors name the file and key or tensor: a missing or
// non-positive in_features / out_features, a tensor whose shape disagrees with them, a missing bias when "bias" is
// true, an unknown activation.
absl::StatusOr<SentenceDense> LoadSentenceDense(const std::string& folder);

// act(W·x + b); x.size() must be in_features (InvalidArgument otherwise).
absl::StatusOr<std::vector<float>> ApplyDense(const SentenceDense& dense, std::span<const float> x);

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_SENTENCE_DENSE_H_
