// Fuzz target: the safetensors reader. Any bytes either fail to open with a status, or open with a header whose
// every tensor can be read as float32 and touched end to end (no read outside the file).
//
//   build-fuzz/fuzz_model_safetensors tests/fuzz/corpus/model_safetensors -max_total_time=30
#include <cmath>
#include <cstdint>
#include <string>

#include "embeddings/safetensors.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  auto file = SafetensorsFile::FromBytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.safetensors");
  if (!file.ok()) {
    FUZZ_CHECK(!file.status().message().empty());
    return 0;
  }
  for (const SafetensorsEntry& entry : (*file)->entries()) {
    FUZZ_CHECK(entry.begin <= entry.end && entry.end <= size);
    absl::StatusOr<FloatTensor> tensor = (*file)->ReadFloat32(entry.name);
    if (!tensor.ok()) continue;  // A dtype that is not a float type.
    volatile float sum = 0;
    for (int64_t i = 0; i < tensor->num_elements(); ++i) sum = sum + tensor->data[i];
  }
  return 0;
}
