// Fuzz target: sharded weights, model.safetensors.index.json and two shards, through SafetensorsShards::Open.
// Any input gives a status, or shards where every tensor Find sees reads back (or is refused for its dtype) without
// a crash.
//
//   build-fuzz/fuzz_model_safetensors_index tests/fuzz/corpus/model_safetensors_index -max_total_time=30
//
// Input layout (FuzzedDataProvider): the index text and a.safetensors (random-length strings), then the rest is
// b.safetensors.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>

#include "embeddings/safetensors_shards.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  FuzzedDataProvider fdp(data, size);
  const std::string index = fdp.ConsumeRandomLengthString(4096);
  const std::string a = fdp.ConsumeRandomLengthString(1 << 16);
  const std::string b = fdp.ConsumeRemainingBytesAsString();
  const std::string& dir = FuzzScratchDir("tokvec_fuzz_shards_");
  FuzzWriteBytes(dir + "/model.safetensors.index.json", index);
  FuzzWriteBytes(dir + "/a.safetensors", a);
  FuzzWriteBytes(dir + "/b.safetensors", b);
  absl::StatusOr<std::unique_ptr<SafetensorsShards>> shards =
      SafetensorsShards::Open(dir + "/model.safetensors.index.json");
  if (!shards.ok()) {
    FUZZ_CHECK(!shards.status().message().empty());
    return 0;
  }
  FUZZ_CHECK((*shards)->shard_count() >= 1 && (*shards)->shard_count() <= 2);
  for (const char* name : {"embeddings.word_embeddings.weight", "a", "pooler.dense.bias"}) {
    if ((*shards)->Find(name) == nullptr) continue;
    absl::StatusOr<FloatTensor> t = (*shards)->ReadFloat32(name);
    FUZZ_CHECK(t.ok() || !t.status().message().empty());
  }
  return 0;
}
