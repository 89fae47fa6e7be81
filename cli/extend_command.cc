// `tokvec extend -m MODEL --add-tokens FILE -o OUT`: a tokenizer with more tokens, every existing id where it was
// (tokenizer/added_tokens.h: Hugging Face's add_tokens), so a model's embedding table only grows.
//
//   tokvec extend -m tokenizer.json --add-tokens domain_words.txt -o extended.json
//   tokvec extend -m tokenizer.json --add-tokens markers.txt --special -o extended.json   # <|tool|>, ...
//
// FILE: one token per line, with the flags of --special, --single-word, --lstrip, --rstrip, --normalized; or a
// line that is a JSON object as tokenizer.json's added_tokens entries ({"content", "special", ...}). OUT ending in
// `.json` is written as a Hugging Face tokenizer.json (any tokenizer `tokvec convert --to json` writes), `.tokvec`
// as tokvec's model file (plain special tokens only). Everything is checked before OUT is written, atomically.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::cli {
namespace {

struct ExtendOptions {
  std::string model;
  std::string add_tokens;
  std::string output;
  std::string pattern;
  NewToken defaults;
  std::string normalized;  // "", "true" or "false"
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

absl::Status RunExtend(ExtendOptions options) {
  if (!EndsWith(options.output, ".json") && !EndsWith(options.output, ".tokvec")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}-o must end in .json (Hugging Face tokenizer.json) or .tokvec (tokvec's model file), not '{}'",
        kUsagePrefix, options.output));
  }
  if (!options.normalized.empty()) {
    if (options.normalized != "true" && options.normalized != "false") {
      return absl::InvalidArgumentError(
          fmt::format("{}--normalized must be true or false, not '{}'", kUsagePrefix, options.normalized));
    }
    options.defaults.normalized = options.normalized == "true";
  }
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.add_tokens));
  TOKVEC_ASSIGN_OR_RETURN(std::vector<NewToken> tokens, ParseNewTokens(text, options.defaults, options.add_tokens));
  if (tokens.empty()) {
    return absl::InvalidArgumentError(fmt::format("'{}' lists no tokens (one per line)", options.add_tokens));
  }
  const Tokenizer::LoadOptions load{.pattern = options.pattern};
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> before, Tokenizer::Load(options.model, load));
  TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, Tokenizer::LoadSpec(options.model, load));
  TOKVEC_ASSIGN_OR_RETURN(const AddedTokensReport report, AddTokens(tokens, *before, &spec));
  const bool normalized_added = std::any_of(tokens.begin(), tokens.end(), [&](const NewToken& t) {
    return t.normalized.value_or(!t.special);
  });
  if (normalized_added && spec.normalizer != nullptr && spec.normalizer->IcuSteps().empty()) {
    std::fprintf(stderr,
                 "note: this tokenizer's normalizer (%s) is one whose normalized added tokens tokvec matches in the "
                 "input, where Hugging Face matches their normalization; pass --normalized false (or "
                 "\"normalized\": false) for the same ids in both (docs/tokenizers.md, \"Added tokens\")\n",
                 spec.normalizer->name().c_str());
  }
  absl::StatusOr<std::unique_ptr<Tokenizer>> after = Tokenizer::Create(std::move(spec));
  if (!after.ok()) {
    return absl::Status(after.status().code(), fmt::format("the extended tokenizer is not valid: {}",
                                                           std::string(after.status().message())));
  }
  std::string contents;
  if (EndsWith(options.output, ".json")) {
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(**after);
    if (!json.ok()) {
      return absl::Status(json.status().code(), fmt::format("cannot write tokenizer.json: {}",
                                                            std::string(json.status().message())));
    }
    contents = *std::move(json);
  } else {
    absl::StatusOr<std::string> model = CheckedTokvecModel(**after, options.output);
    if (!model.ok()) {
      return absl::Status(model.status().code(), fmt::format("{} (write OUT.json instead)",
                                                             std::string(model.status().message())));
    }
    contents = *std::move(model);
  }
  TOKVEC_RETURN_IF_ERROR(WriteFileAtomically(options.output, contents));
  std::fprintf(stderr,
               "%zu new tokens (ids %zu..%zu), %zu already in the vocabulary (kept their ids), %zu updated, %zu "
               "unchanged; vocabulary %zu -> %zu ids; wrote %s\n",
               report.new_ids, before->vocab_size(), report.vocab_size - 1, report.from_vocab, report.updated,
               report.unchanged, before->vocab_size(), (*after)->vocab_size(), options.output.c_str());
  return absl::OkStatus();
}

}  // namespace

void RegisterExtendCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ExtendOptions>();
  CLI::App* sub = app.add_subcommand(
      "extend", "Add tokens to a tokenizer without moving any id (Hugging Face's add_tokens), written to OUT");
  sub->add_option("-m,--model", options->model,
                  "Tokenizer to extend: tokenizer.json, tokvec model, .tiktoken, vocab.json (+merges.txt), or a "
                  "directory holding one")
      ->required();
  sub->add_option("--add-tokens", options->add_tokens,
                  "File of tokens, one per line (or JSON objects as tokenizer.json's added_tokens)")
      ->required();
  sub->add_option("-o,--output", options->output, "OUT.json (tokenizer.json) or OUT.tokvec")->required();
  sub->add_flag("--special", options->defaults.special, "The tokens are special (skipped by decode's "
                                                         "skip_special_tokens)");
  sub->add_flag("--single-word", options->defaults.single_word, "Match only as a whole word");
  sub->add_flag("--lstrip", options->defaults.lstrip, "A match takes the white space on its left");
  sub->add_flag("--rstrip", options->defaults.rstrip, "A match takes the white space on its right");
  sub->add_option("--normalized", options->normalized,
                  "Match in the normalized text: true or false (default: true unless --special)");
  sub->add_option("--pattern", options->pattern,
                  "Split pattern (gpt2, cl100k, o200k or an ICU regex) for a .tiktoken file of unknown name");
  sub->callback([options, action] { *action = [options] { return RunExtend(*options); }; });
}

}  // namespace tokvec::cli
