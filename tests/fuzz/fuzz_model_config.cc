// Fuzz target: config.json parsing (gpt2, encoder, roberta, gpt_neo, bert, llama, qwen2, qwen3; "attention" kinds). Any text
// gives a status or a config whose sizes are usable: positive, with d_model divisible by n_heads (decoders: key/value
// heads dividing the query heads, an even head_dim), and either no attention kinds or one
// per layer, each printing back to a string that parses to the same kind. The first bytes also go to
// ParseAttentionKind directly.
//
//   build-fuzz/fuzz_model_config tests/fuzz/corpus/model_config -max_total_time=30
#include <cstdint>
#include <string_view>

#include "attention/attention_kind.h"
#include "models/model_config.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (absl::StatusOr<AttentionKind> kind = ParseAttentionKind(text.substr(0, 40)); kind.ok()) {
    absl::StatusOr<AttentionKind> again = ParseAttentionKind(AttentionKindName(*kind));
    FUZZ_CHECK(again.ok() && *again == *kind);
  }
  absl::StatusOr<ModelConfig> config = ParseModelConfig(text, "fuzz/config.json");
  if (!config.ok()) {
    FUZZ_CHECK(!config.status().message().empty());
    return 0;
  }
  if (config->decoder()) {
    // llama / qwen2 / qwen3: heads may have an explicit head_dim; key/value heads divide the query heads.
    FUZZ_CHECK(config->d_model > 0 && config->n_heads > 0 && config->n_kv_heads > 0 &&
               config->n_heads % config->n_kv_heads == 0 && config->head_dim() > 0 && config->head_dim() % 2 == 0);
  } else {
    FUZZ_CHECK(config->d_model > 0 && config->n_heads > 0 && config->d_model % config->n_heads == 0);
  }
  FUZZ_CHECK(config->vocab_size > 0 && config->n_layers >= 0 && config->max_len > 0);
  FUZZ_CHECK(config->attention.empty() || static_cast<int64_t>(config->attention.size()) == config->n_layers);
  for (const AttentionKind& kind : config->attention) {
    absl::StatusOr<AttentionKind> again = ParseAttentionKind(AttentionKindName(kind));
    FUZZ_CHECK(again.ok() && *again == kind);
    FUZZ_CHECK(!config->causal() || kind.supports_causal());
  }
  return 0;
}
