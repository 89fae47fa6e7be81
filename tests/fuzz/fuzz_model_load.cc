// Fuzz target: a whole model directory (config.json + model.safetensors) through Model::Load, then one forward
// pass over a few ids. Any input gives a status or a model whose output has the right shape and finite
// values for finite weights.
//
//   build-fuzz/fuzz_model_load tests/fuzz/corpus/model_load -max_total_time=30
//
// Input layout (FuzzedDataProvider): config.json text (a random-length string), then the safetensors bytes;
// ids come from the end of the input.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/model.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  FuzzedDataProvider fdp(data, size);
  std::vector<uint32_t> ids;
  const int n_ids = fdp.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < n_ids; ++i) ids.push_back(fdp.ConsumeIntegralInRange<uint32_t>(0, 40));
  const std::string config = fdp.ConsumeRandomLengthString(2048);
  const std::string weights = fdp.ConsumeRemainingBytesAsString();
  const std::string& dir = FuzzScratchDir("tokvec_fuzz_model_");
  FuzzWriteBytes(dir + "/config.json", config);
  FuzzWriteBytes(dir + "/model.safetensors", weights);
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  if (!model.ok()) {
    FUZZ_CHECK(!model.status().message().empty());
    return 0;
  }
  absl::StatusOr<ModelOutput> out = (*model)->Forward(ids, {.threads = 1, .keep_weights_of = {0}});
  if (!out.ok()) return 0;  // Ids out of range or too many for the positions: a status, not a crash.
  FUZZ_CHECK(out->hidden.rows() == static_cast<int64_t>(ids.size()));
  FUZZ_CHECK(out->hidden.cols() == (*model)->config().d_model);
  return 0;
}
