// `tokvec convert -m MODEL -o OUT [--to json|tiktoken|both] [--pattern P]`: writes a loaded tokenizer in the
// ecosystem's formats.
//
//   tokvec convert -m gpt2.tiktoken -o gpt2          # gpt2.json (Hugging Face tokenizer.json) + gpt2.tiktoken
//   tokvec convert -m model.tokvec -o out --to json  # out.json only
//
//   tokvec convert -m legacy/tokenizer.json -o tokenizer.json   # any tokenizer.json, in the current shape
//
// OUT ending in `.json` or `.tiktoken` (with no --to, or the matching one) names the one file to write. Byte-level
// models are written from any source; the other kinds (code-point BPE, WordPiece, WordLevel, Unigram) when read
// from a tokenizer.json, whose sections are kept (formats.h: WriteHfTokenizerJson). Both contents are built
// before either file is written, and each is written atomically (temporary file + rename), so a failure
// leaves no partial output.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::cli {
namespace {

struct ConvertOptions {
  std::string model;
  std::string output;
  std::string to;       // "json", "tiktoken", "both" or "" (from OUT's extension, else both).
  std::string pattern;  // For a .tiktoken input of unknown name.
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

absl::Status RunConvert(const ConvertOptions& options) {
  // 1. Which files.
  std::string to = options.to;
  std::string stem = options.output;
  if (to.empty()) {
    to = EndsWith(stem, ".json") ? "json" : EndsWith(stem, ".tiktoken") ? "tiktoken" : "both";
    if (to != "both") stem = stem.substr(0, stem.rfind('.'));
  } else if ((to == "json" && EndsWith(stem, ".json")) || (to == "tiktoken" && EndsWith(stem, ".tiktoken"))) {
    stem = stem.substr(0, stem.rfind('.'));  // -o out.json --to json writes out.json, not out.json.json.
  }
  if (to != "json" && to != "tiktoken" && to != "both") {
    return absl::InvalidArgumentError(
        fmt::format("{}--to must be json, tiktoken or both, got '{}'", kUsagePrefix, options.to));
  }
  // 2. Load and render everything before writing anything.
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer,
                          Tokenizer::Load(options.model, {.pattern = options.pattern}));
  std::vector<std::pair<std::string, std::string>> files;  // (path, contents)
  if (to == "json" || to == "both") {
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(*tokenizer);
    if (!json.ok()) return absl::Status(json.status().code(), fmt::format("cannot write tokenizer.json: {}",
                                                                          std::string(json.status().message())));
    files.emplace_back(stem + ".json", std::move(json).value());
  }
  if (to == "tiktoken" || to == "both") {
    absl::StatusOr<std::string> ranks = WriteTiktoken(*tokenizer);
    if (!ranks.ok()) {
      return absl::Status(ranks.status().code(),
                          fmt::format("cannot write .tiktoken: {}{}", std::string(ranks.status().message()),
                                      to == "both" ? " (pass --to json to write only tokenizer.json)" : ""));
    }
    files.emplace_back(stem + ".tiktoken", std::move(ranks).value());
  }
  // 3. Write.
  for (const auto& [path, contents] : files) TOKVEC_RETURN_IF_ERROR(WriteFileAtomically(path, contents));
  for (const auto& [path, contents] : files) std::fprintf(stderr, "wrote %s (%zu bytes)\n", path.c_str(), contents.size());
  return absl::OkStatus();
}

}  // namespace

void RegisterConvertCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* sub = app.add_subcommand(
      "convert", "Write a tokenizer as Hugging Face tokenizer.json (OUT.json) and tiktoken ranks (OUT.tiktoken)");
  sub->add_option("-m,--model", options->model,
                  "Tokenizer to read: tokvec model, .tiktoken, vocab.json (+merges.txt), tokenizer.json, or a "
                  "directory holding one")
      ->required();
  sub->add_option("-o,--output", options->output, "Output path stem (OUT.json, OUT.tiktoken), or one file")
      ->required();
  sub->add_option("--to", options->to, "Which format: json, tiktoken or both (default: from OUT, else both)");
  sub->add_option("--pattern", options->pattern,
                  "Split pattern (gpt2, cl100k, o200k or an ICU regex) for a .tiktoken file of unknown name");
  sub->callback([options, action] { *action = [options] { return RunConvert(*options); }; });
}

}  // namespace tokvec::cli
