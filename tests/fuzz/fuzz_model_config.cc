// Fuzz target: config.json parsing. Any text gives a status or a config whose sizes are usable: positive, with
// d_model divisible by n_heads.
//
//   build-fuzz/fuzz_model_config tests/fuzz/corpus/model_config -max_total_time=30
#include <cstdint>
#include <string_view>

#include "attention/model_config.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ModelConfig> config = ParseModelConfig(text, "fuzz/config.json");
  if (!config.ok()) {
    FUZZ_CHECK(!config.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(config->d_model > 0 && config->n_heads > 0 && config->d_model % config->n_heads == 0);
  FUZZ_CHECK(config->vocab_size > 0 && config->n_layers >= 0 && config->max_len > 0);
  return 0;
}
