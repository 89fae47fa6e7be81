#include "cli/prompt_flags.h"

#include <cctype>

#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "pipeline/sentence_transformers_config.h"

namespace tokvec::cli {

void AddPromptFlags(CLI::App* sub, PromptFlags* flags, std::string_view what) {
  // "Query texts: text put ..." or, without a `what`, "Text put ...".
  auto help = [what](std::string text) {
    if (what.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return std::string(what) + text;
  };
  sub->add_option("--prompt", flags->prompt,
                  help("text put before every input, as sentence-transformers' prompt (e.g. \"query: \")"));
  sub->add_option("--prompt-name", flags->prompt_name,
                  help("a prompt of the model's config_sentence_transformers.json (its default_prompt_name "
                       "applies without this)"));
  sub->add_flag("--no-default-prompt", flags->no_default_prompt,
                help("leave out the model's default_prompt_name prompt"));
  sub->add_flag("--truncate{right}", flags->truncate,
                help("cut texts longer than the model takes (sentence_bert_config.json's max_seq_length, else "
                     "the model's maximum; special tokens kept): --truncate or --truncate=right drops the end, "
                     "--truncate=left the start. Without it a too-long text is an error"))
      ->check(CLI::IsMember({"right", "left"}));
  sub->add_option("--max-length", flags->max_length,
                  help("tokens per text, special tokens included, for truncation (implies --truncate)"))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
}

absl::Status ApplyPromptFlags(const PromptFlags& flags, const ModelDirectory& dir, const PoolingChoice& choice,
                              bool auto_pooling, EmbedTextsOptions* options) {
  if (flags.prompt && !flags.prompt_name.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}give --prompt or --prompt-name, not both", kUsagePrefix));
  }
  TOKVEC_ASSIGN_OR_RETURN(options->prompt, ChoosePrompt(dir.sentence_config(), flags.prompt, flags.prompt_name,
                                                        !flags.no_default_prompt));
  TOKVEC_ASSIGN_OR_RETURN(options->pool_skip, PromptPoolingSkip(dir, choice, auto_pooling, options->prompt));
  options->truncate = Truncation::kNone;
  if (!flags.truncate.empty() || flags.max_length > 0) {
    TOKVEC_ASSIGN_OR_RETURN(options->truncate, ParseTruncation(flags.truncate.empty() ? "right" : flags.truncate));
  }
  options->max_length = flags.max_length > 0 ? flags.max_length : TruncationLength(dir);
  if (options->truncate != Truncation::kNone && options->max_length > dir.model().config().max_len) {
    return absl::InvalidArgumentError(fmt::format("--max-length {} is more than the model's maximum of {} tokens",
                                                  options->max_length, dir.model().config().max_len));
  }
  return absl::OkStatus();
}

}  // namespace tokvec::cli
