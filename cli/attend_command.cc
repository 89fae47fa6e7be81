// tokvec attend: one head's attention weights for a text, as a table, JSON, an SVG heatmap or an HTML page.
//
//   echo "Your cat is a lovely cat" | tokvec attend -m models/tiny --layer 1 --head 0 --svg cat.svg
//
// Rows are query tokens, columns the keys they attend to; each row sums to 1 (GPT-2: zeros right of the
// diagonal, the causal mask). The text's final newline is not part of it.
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "pipeline/heatmap.h"
#include "pipeline/model_directory.h"
#include "tokenizer/readable_token.h"

namespace tokvec::cli {
namespace {

struct AttendOptions {
  std::string model;
  int64_t layer = 0;
  int64_t head = 0;
  std::string format = "text";
  std::string svg;
  std::string html;
  std::string output = "-";
  std::string input = "-";
  int threads = 1;
};

absl::Status RunAttend(const AttendOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load(options.model));
  const ModelConfig& config = dir.model().config();
  if (options.layer < 0 || options.layer >= config.n_layers) {
    return absl::InvalidArgumentError(fmt::format("--layer {} does not exist; the model has layers 0..{}",
                                                  options.layer, config.n_layers - 1));
  }
  if (options.head < 0 || options.head >= config.n_heads) {
    return absl::InvalidArgumentError(
        fmt::format("--head {} does not exist; the model has heads 0..{}", options.head, config.n_heads - 1));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::string input, ReadFile(options.input));
  std::string_view text = input;
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  EmbedOptions embed_options;
  embed_options.threads = options.threads;
  embed_options.keep_weights_of = {options.layer};
  TOKVEC_ASSIGN_OR_RETURN(EmbeddedText embedded, dir.Embed(text, embed_options));
  if (embedded.ids.empty()) return absl::InvalidArgumentError("the input has no tokens: nothing attends to anything");
  const MatrixView weights = embedded.attention_weights.at(options.layer)[options.head].view();  // [T, T]
  const std::string title = fmt::format("{}: layer {}, head {}", options.model, options.layer, options.head);
  // What a person reads (table, SVG, HTML) shows readable tokens (`␣cat`); JSON keeps GPT-2's spelling (`Ġcat`).
  std::vector<std::string> readable;
  for (uint32_t id : embedded.ids) readable.push_back(ReadableToken(dir.tokenizer(), id));
  if (!options.svg.empty()) {
    TOKVEC_RETURN_IF_ERROR(WriteFileAtomically(options.svg, WeightsSvg(readable, weights, title)));
  }
  if (!options.html.empty()) {
    TOKVEC_RETURN_IF_ERROR(WriteFileAtomically(options.html, WeightsHtml(readable, weights, title)));
  }
  std::string out = options.format == "json"
                        ? WeightsJson(embedded.tokens, weights, options.layer, options.head)
                        : fmt::format("# {} (rows: queries, columns: keys)\n{}", title, WeightsTable(readable, weights));
  return WriteFileAtomically(options.output, out);
}

}  // namespace

void RegisterAttendCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<AttendOptions>();
  CLI::App* sub = app.add_subcommand("attend", "Show the attention weights of one layer and head for a text");
  sub->add_option("-m,--model", options->model, "Model directory")->required();
  sub->add_option("--layer", options->layer, "Layer (0-based)")->capture_default_str();
  sub->add_option("--head", options->head, "Head (0-based)")->capture_default_str();
  sub->add_option("--format", options->format, "text (aligned table) | json {\"tokens\", \"weights\"}")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--svg", options->svg, "Also write the heatmap as SVG");
  sub->add_option("--html", options->html, "Also write a self-contained HTML page (hover a cell for its value)");
  sub->add_option("--threads", options->threads, "Worker threads")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("-o,--output", options->output, "Where the table or JSON goes ('-' = standard output)")
      ->capture_default_str();
  sub->add_option("input", options->input, "Input text file ('-' = standard input)")->capture_default_str();
  sub->callback([options, action] { *action = [options] { return RunAttend(*options); }; });
}

}  // namespace tokvec::cli
