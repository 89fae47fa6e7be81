// tokvec classify: each line's label by a sequence classification model (pipeline/cross_encoder.h).
//
//   tokvec classify -m distilbert-sst2 reviews.txt
//   tokvec classify -m nli-deberta --pairs premises_hypotheses.tsv     # "premise<TAB>hypothesis" per line
//
// Output: one JSON object per input line (JSON Lines), {"label": the best label, "score": its probability,
// "scores": {label: probability, ...}} with the labels of config.json's id2label; probabilities are the softmax over
// the labels (a one-label model: the sigmoid of its logit), --raw-scores gives the logits.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/text_lines.h"
#include "cli/usage_error.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "pipeline/cross_encoder.h"

namespace tokvec::cli {
namespace {

struct ClassifyOptions {
  std::string model;
  bool pairs = false;
  bool raw_scores = false;
  int threads = 1;
  std::string output = "-";
  std::string input = "-";
};

absl::Status RunClassify(const ClassifyOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.input));
  std::vector<std::string_view> lines, a, b;
  AppendLines(text, &lines);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!options.pairs) {
      a.push_back(lines[i]);
      continue;
    }
    const size_t tab = lines[i].find('\t');
    if (tab == std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("line {}: --pairs needs two texts separated by a tab, found none", i + 1));
    }
    a.push_back(lines[i].substr(0, tab));
    b.push_back(lines[i].substr(tab + 1));
  }
  TOKVEC_ASSIGN_OR_RETURN(CrossEncoder classifier, CrossEncoder::Load(options.model));
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::vector<float>> logits, classifier.Logits(a, b, options.threads));
  const std::vector<std::string>& labels = classifier.head().labels();
  std::string out;
  for (const std::vector<float>& row : logits) {
    const std::vector<float> scores = ScoresOf(row, options.raw_scores);
    size_t best = 0;
    for (size_t l = 1; l < scores.size(); ++l) {
      if (scores[l] > scores[best]) best = l;
    }
    nlohmann::ordered_json line;
    line["label"] = labels[best];
    line["score"] = scores[best];
    nlohmann::ordered_json all = nlohmann::ordered_json::object();
    for (size_t l = 0; l < scores.size(); ++l) all[labels[l]] = scores[l];
    line["scores"] = all;
    out += line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  return WriteFileAtomically(options.output, out);
}

}  // namespace

void RegisterClassifyCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* sub = app.add_subcommand("classify", "Label each line (or tab-separated pair) with a classification model");
  sub->add_option("-m,--model", options->model,
                  "Model directory whose config.json names a *ForSequenceClassification head")
      ->required();
  sub->add_flag("--pairs", options->pairs, "Each line is two texts separated by a tab (sentence-pair classifiers)");
  sub->add_flag("--raw-scores", options->raw_scores, "Logits instead of probabilities");
  sub->add_option("--threads", options->threads, "Worker threads")->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output file ('-' = standard output)")->capture_default_str();
  sub->add_option("input", options->input, "Texts, one per line ('-' or none: standard input)");
  sub->callback([options, action] { *action = [options] { return RunClassify(*options); }; });
}

}  // namespace tokvec::cli
