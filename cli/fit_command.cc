// tokvec fit: train a model directory's weights on text (causal LM for GPT-2, masked LM for the encoder), exact
// against PyTorch.
//
//   tokvec fit -m models/tiny --objective clm --data data/corpus.txt --seq-len 64 --batch 8 --steps 200
//       --lr 1e-3 --warmup 20 -o models/tiny-fit
//
// See training/fit.h for OUTDIR's files, metrics.jsonl and --resume; training/token_stream.h for the data rule.
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "fmt/format.h"
#include "training/fit.h"

namespace tokvec::cli {
namespace {

struct FitCliOptions {
  training::FitOptions fit;
  std::string objective = "clm";
  bool no_shuffle = false;
};

absl::Status RunFit(FitCliOptions options) {
  options.fit.objective = options.objective;
  options.fit.shuffle = !options.no_shuffle;
  if ((options.fit.steps > 0) == (options.fit.epochs > 0)) {
    return absl::InvalidArgumentError(std::string(kUsagePrefix) + "give exactly one of --steps and --epochs");
  }
  return training::Fit(options.fit);
}

}  // namespace

void RegisterFitCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<FitCliOptions>();
  training::FitOptions& f = options->fit;
  CLI::App* sub =
      app.add_subcommand("fit", "Train a model's weights on text (causal LM, masked LM or SimCSE), with AdamW or SGD");
  sub->add_option("-m,--model", f.model_dir, "Model directory to start from (tokvec init, or Hugging Face GPT-2)")
      ->required();
  sub->add_option("--objective", options->objective,
                  "clm (causal LM, gpt2 models), mlm (masked LM, encoder models) or simcse (unsupervised SimCSE: "
                  "sentence embeddings from line pairs, any model; implies --lines)")
      ->check(CLI::IsMember({"clm", "mlm", "simcse"}))
      ->capture_default_str();
  sub->add_flag("--lines", f.lines, "Each line of --data is one row (padded, key-padding mask), not a window");
  sub->add_option("--pooling", f.pooling, "simcse: mean, cls, last or auto (mean for encoders, last for gpt2)")
      ->check(CLI::IsMember({"auto", "mean", "cls", "last"}))
      ->capture_default_str();
  sub->add_option("--temperature", f.temperature, "simcse: the InfoNCE temperature τ")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--data", f.data, "Training text files, concatenated in order")->required();
  sub->add_option("--eval-data", f.eval_data, "Held-out text files for eval_loss / eval_ppl");
  sub->add_option("--seq-len", f.seq_len, "Tokens per row (T)")->required()->check(CLI::PositiveNumber);
  sub->add_option("--batch", f.batch, "Rows per micro-batch (B)")->required()->check(CLI::PositiveNumber);
  sub->add_option("--steps", f.steps, "Optimizer steps")->check(CLI::PositiveNumber);
  sub->add_option("--epochs", f.epochs, "Passes over the data's windows (instead of --steps)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--lr", f.lr, "Peak learning rate")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--schedule", f.schedule, "constant, linear or cosine (after --warmup)")
      ->check(CLI::IsMember({"constant", "linear", "cosine"}))
      ->capture_default_str();
  sub->add_option("--warmup", f.warmup, "Steps of linear warmup")->capture_default_str()->check(CLI::NonNegativeNumber);
  sub->add_option("--weight-decay", f.weight_decay, "Decoupled weight decay on matrices and embedding tables")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--beta1", f.beta1, "AdamW beta1")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  sub->add_option("--beta2", f.beta2, "AdamW beta2")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  sub->add_option("--eps", f.eps, "AdamW epsilon")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--momentum", f.momentum, "SGD momentum")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  sub->add_option("--optimizer", f.optimizer, "adamw or sgd")
      ->check(CLI::IsMember({"adamw", "sgd"}))
      ->capture_default_str();
  sub->add_option("--clip", f.clip, "Clip the global gradient norm to this (0: off)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--grad-accum", f.grad_accum, "Micro-batches per optimizer step")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--dropout", f.dropout,
                  "Dropout after the embeddings, on attention weights and on residuals [default: 0; simcse 0.1]")
      ->check(CLI::Range(0.0, 0.99));
  sub->add_flag("--no-shuffle", options->no_shuffle, "Read windows in order: row r of step s starts at (s·B + r)·T");
  sub->add_option("--seed", f.seed, "Seed of the window shuffle")->capture_default_str();
  sub->add_option("--threads", f.threads, "Worker threads (results are the same for any count)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  sub->add_option("--log-every", f.log_every, "Steps between metrics.jsonl lines")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--eval-every", f.eval_every, "Steps between evaluations of --eval-data (0: at the end)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--save-every", f.save_every, "Steps between checkpoints (0: at the end)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--resume", f.resume, "Continue the run saved in -o (same options)");
  sub->add_option("--stop-after", f.stop_after, "Stop with a resumable checkpoint after this many steps")
      ->check(CLI::NonNegativeNumber)
      ->group("");  // for tests of --resume; Ctrl-C does the same interactively
  sub->add_option("-o,--output", f.output, "Output model directory")->required();
  sub->callback([options, action] { *action = [options] { return RunFit(*options); }; });
}

}  // namespace tokvec::cli
