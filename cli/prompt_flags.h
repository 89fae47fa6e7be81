// The prompt and truncation flags `embed` and `search` share (sentence-transformers' prompts and opt-in
// truncation, pipeline/sentence_transformers_config.h and pipeline/embed_texts.h), and their resolution against a
// model directory into EmbedTextsOptions.
//
//   PromptFlags flags;
//   AddPromptFlags(sub, &flags, "");                 // --prompt, --prompt-name, --no-default-prompt, --truncate...
//   TOKVEC_RETURN_IF_ERROR(ApplyPromptFlags(flags, dir, choice, pooling_name == "auto", &embed_options));
#ifndef TOKVEC_CLI_PROMPT_FLAGS_H_
#define TOKVEC_CLI_PROMPT_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"

namespace tokvec::cli {

struct PromptFlags {
  std::optional<std::string> prompt;  // put before every text
  std::string prompt_name;            // a prompt of config_sentence_transformers.json
  bool no_default_prompt = false;     // leave out its default_prompt_name
  std::string truncate;               // "", "right" or "left"
  int64_t max_length = 0;             // tokens per text with truncation (0: max_seq_length or the model's)
};

// Registers the five flags; `what` starts each help text (e.g. "Query texts: "), or is empty.
void AddPromptFlags(CLI::App* sub, PromptFlags* flags, std::string_view what);

// Sets options->prompt, pool_skip, truncate and max_length (resolved: --max-length, else TruncationLength).
// Usage errors: --prompt with --prompt-name; an unknown prompt name and a --max-length above the model's are
// InvalidArgument. `auto_pooling`: the pooling is the directory's own (include_prompt applies).
absl::Status ApplyPromptFlags(const PromptFlags& flags, const ModelDirectory& dir, const PoolingChoice& choice,
                              bool auto_pooling, EmbedTextsOptions* options);

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_PROMPT_FLAGS_H_
