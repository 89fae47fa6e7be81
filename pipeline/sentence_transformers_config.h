// What a sentence-transformers model directory says besides its modules (pooling.h reads those):
//
//   config_sentence_transformers.json   {"prompts": {"query": "query: ", "document": ""}, "default_prompt_name": null}
//   sentence_bert_config.json           {"max_seq_length": 256, "do_lower_case": false}
//
// and the prompt and truncation rules sentence-transformers applies with them (SentenceTransformer.encode):
//   - a prompt is put before every text (as text, before tokenizing); `prompt` wins over `prompt_name`, and with
//     neither the directory's default_prompt_name applies when it has one;
//   - with a Pooling module whose config has "include_prompt": false, mean and max pooling leave out the first
//     (tokens of the prompt alone, special tokens included) - 1 positions, as its Pooling module masks them;
//   - truncation keeps the special tokens around the text and cuts the text's tokens to max_seq_length in all.
//
//   TOKVEC_ASSIGN_OR_RETURN(SentenceTransformersConfig config, LoadSentenceTransformersConfig("all-MiniLM-L6-v2"));
//   config.max_seq_length   // 256; 0 when the file or the key is absent
#ifndef TOKVEC_PIPELINE_SENTENCE_TRANSFORMERS_CONFIG_H_
#define TOKVEC_PIPELINE_SENTENCE_TRANSFORMERS_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace tokvec {

struct SentenceTransformersConfig {
  std::map<std::string, std::string> prompts;  // name -> text
  std::string default_prompt_name;             // "" when none (absent or null)
  int64_t max_seq_length = 0;                  // 0 when not given
};

// Reads DIR/config_sentence_transformers.json and DIR/sentence_bert_config.json; an absent file gives the
// defaults. A malformed file, prompts that are not strings, a default_prompt_name that names no prompt or a
// max_seq_length that is not a positive integer is InvalidArgument naming the file and key.
absl::StatusOr<SentenceTransformersConfig> LoadSentenceTransformersConfig(const std::string& dir);

// The prompt text to put before every text: `prompt` when given, else the prompt named `prompt_name`, else (when
// `use_default`) the default prompt, else "". An unknown name is InvalidArgument listing the names there are.
absl::StatusOr<std::string> ChoosePrompt(const SentenceTransformersConfig& config,
                                         const std::optional<std::string>& prompt, const std::string& prompt_name,
                                         bool use_default);

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_SENTENCE_TRANSFORMERS_CONFIG_H_
