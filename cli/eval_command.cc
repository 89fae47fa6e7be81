// tokvec eval: a model's mean loss and perplexity on text (clm: next token; mlm: masked tokens, masks drawn with
// seed 0, the same as fit's --eval-data; simcse: the InfoNCE loss of each batch of lines, dropout off, no ppl).
//
//   tokvec eval -m models/tiny-fit --objective clm --data held_out.txt --seq-len 64
//   {"loss": 4.123, "ppl": 61.77, "tokens": 12288}
//
// The text is one token stream (each file followed by the end-of-text token when the tokenizer has one), cut
// into consecutive windows of --seq-len + 1 tokens at stride --seq-len; `tokens` is how many were predicted.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"
#include "training/fit.h"
#include "training/gpt2_model.h"
#include "training/token_stream.h"

namespace tokvec::cli {
namespace {

struct EvalOptions {
  std::string model;
  std::string objective = "clm";
  std::vector<std::string> data;
  int64_t seq_len = 0;  // 0: the model's n_positions
  int64_t batch = 8;
  int threads = 1;
  bool lines = false;
  std::string pooling = "auto";
  double temperature = 0.05;
};

absl::Status RunEval(const EvalOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<training::Gpt2Model> model, training::Gpt2Model::Load(options.model));
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.model));
  TOKVEC_ASSIGN_OR_RETURN(const std::optional<training::MlmMasking> mlm,
                          training::ObjectiveMasking(options.objective, *model, *tokenizer, options.model, 0));
  const int64_t max_len = model->config().max_len;
  if (options.seq_len > max_len) {
    return absl::InvalidArgumentError(
        fmt::format("--seq-len {} exceeds the model's n_positions {}", options.seq_len, max_len));
  }
  const int64_t T = options.seq_len > 0 ? options.seq_len : max_len;
  const bool simcse = options.objective == "simcse";
  training::LossSum loss;
  if (options.lines || simcse) {
    std::optional<training::SimcseSettings> settings;
    if (simcse) {
      if (options.batch < 2) return absl::InvalidArgumentError("--objective simcse needs --batch 2 or more");
      TOKVEC_ASSIGN_OR_RETURN(Pooling pooling, training::SimcsePooling(options.pooling, *model));
      settings = training::SimcseSettings{.pooling = pooling, .temperature = static_cast<float>(options.temperature)};
    }
    TOKVEC_ASSIGN_OR_RETURN(training::LineExamples lines,
                            training::LineExamples::Encode(*tokenizer, options.data, mlm || simcse ? T : T + 1));
    TOKVEC_ASSIGN_OR_RETURN(loss, training::EvaluateLines(*model, lines, T, options.batch, options.threads, mlm,
                                                          settings));
  } else {
    TOKVEC_ASSIGN_OR_RETURN(training::TokenStream stream, training::TokenStream::Encode(*tokenizer, options.data));
    TOKVEC_ASSIGN_OR_RETURN(loss, training::EvaluateStream(*model, stream, T, options.batch, options.threads, mlm));
  }
  nlohmann::ordered_json out;
  out["loss"] = loss.mean();
  if (!simcse) out["ppl"] = std::exp(loss.mean());
  out[simcse ? "lines" : "tokens"] = loss.count;
  return WriteAll(stdout, out.dump() + "\n");
}

}  // namespace

void RegisterEvalCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* sub = app.add_subcommand("eval", "A model's mean loss and perplexity on text (causal LM)");
  sub->add_option("-m,--model", options->model, "Model directory")->required();
  sub->add_option("--objective", options->objective,
                  "clm (gpt2 models), mlm (encoder models, fixed masks) or simcse (InfoNCE of line pairs, no dropout)")
      ->check(CLI::IsMember({"clm", "mlm", "simcse"}))
      ->capture_default_str();
  sub->add_flag("--lines", options->lines, "Each line is one row (padded), not windows of the token stream");
  sub->add_option("--pooling", options->pooling, "simcse: mean, cls, last or auto")
      ->check(CLI::IsMember({"auto", "mean", "cls", "last"}))
      ->capture_default_str();
  sub->add_option("--temperature", options->temperature, "simcse: τ")->capture_default_str()->check(
      CLI::PositiveNumber);
  sub->add_option("--data", options->data, "Text files")->required();
  sub->add_option("--seq-len", options->seq_len, "Tokens per window (default: the model's n_positions)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--batch", options->batch, "Windows per batch")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--threads", options->threads, "Worker threads")->capture_default_str()->check(CLI::Range(1, 1024));
  sub->callback([options, action] { *action = [options] { return RunEval(*options); }; });
}

}  // namespace tokvec::cli
