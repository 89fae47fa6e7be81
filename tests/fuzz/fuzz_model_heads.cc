// Fuzz target: what comes after a model's last layer. A mode byte picks one of
//   0  a sentence-transformers directory: modules.json, 1_Pooling/config.json, 2_Dense/config.json and
//      2_Dense/model.safetensors through LoadSentenceTransformersPooling, then each Dense module on a vector;
//   1  a classification head: config.json and model.safetensors through SequenceClassifier::Load (d_model 4),
//      then its logits on a [2, 4] input.
// Any input gives a status or a result of the declared width with finite values for finite weights.
//
//   build-fuzz/fuzz_model_heads tests/fuzz/corpus/model_heads -max_total_time=30
//
// Input layout (FuzzedDataProvider): the mode byte (the input's last), then (mode 0) three random-length strings
// and the remaining bytes as the Dense weights, or (mode 1) one random-length string (config.json) and the
// remaining bytes (weights).
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/sequence_classifier.h"
#include "pipeline/pooling.h"
#include "pipeline/sentence_dense.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

bool AllFinite(const std::vector<float>& v) {
  for (float x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

void SentenceModules(FuzzedDataProvider& fdp, const std::string& dir) {
  using namespace tokvec;
  std::filesystem::create_directories(dir + "/1_Pooling");
  std::filesystem::create_directories(dir + "/2_Dense");
  FuzzWriteBytes(dir + "/modules.json", fdp.ConsumeRandomLengthString(1024));
  FuzzWriteBytes(dir + "/1_Pooling/config.json", fdp.ConsumeRandomLengthString(1024));
  FuzzWriteBytes(dir + "/2_Dense/config.json", fdp.ConsumeRandomLengthString(1024));
  FuzzWriteBytes(dir + "/2_Dense/model.safetensors", fdp.ConsumeRemainingBytesAsString());
  absl::StatusOr<std::optional<SentenceTransformersPooling>> pooling = LoadSentenceTransformersPooling(dir);
  if (!pooling.ok()) {
    FUZZ_CHECK(!pooling.status().message().empty());
    return;
  }
  if (!pooling->has_value() || (*pooling)->dense == nullptr) return;
  for (const SentenceDense& dense : *(*pooling)->dense) {
    FUZZ_CHECK(dense.in_features > 0 && dense.out_features > 0);
    if (dense.in_features > 4096) continue;
    const std::vector<float> x(static_cast<size_t>(dense.in_features), 0.5f);
    absl::StatusOr<std::vector<float>> y = ApplyDense(dense, x);
    FUZZ_CHECK(y.ok());
    FUZZ_CHECK(static_cast<int64_t>(y->size()) == dense.out_features);
    FUZZ_CHECK(!AllFinite(dense.weight) || !AllFinite(dense.bias) || AllFinite(*y));
  }
}

void ClassificationHead(FuzzedDataProvider& fdp, const std::string& dir) {
  using namespace tokvec;
  FuzzWriteBytes(dir + "/config.json", fdp.ConsumeRandomLengthString(2048));
  FuzzWriteBytes(dir + "/model.safetensors", fdp.ConsumeRemainingBytesAsString());
  absl::StatusOr<SequenceClassifier> head =
      SequenceClassifier::Load(dir + "/config.json", dir + "/model.safetensors", /*d_model=*/4);
  if (!head.ok()) {
    FUZZ_CHECK(!head.status().message().empty());
    return;
  }
  Matrix hidden(2, 4);
  for (int64_t i = 0; i < hidden.size(); ++i) hidden.data()[i] = 0.25f * static_cast<float>(i % 3);
  const std::vector<float> logits = head->Logits(hidden.view());
  FUZZ_CHECK(logits.size() == head->labels().size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const uint8_t mode = fdp.ConsumeIntegral<uint8_t>() % 2;
  const std::string& dir = FuzzScratchDir("tokvec_fuzz_heads_");
  std::filesystem::remove_all(dir + "/1_Pooling");
  std::filesystem::remove_all(dir + "/2_Dense");
  if (mode == 0) {
    SentenceModules(fdp, dir);
  } else {
    ClassificationHead(fdp, dir);
  }
  return 0;
}
