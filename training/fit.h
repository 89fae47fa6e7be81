// The `tokvec fit` and `tokvec eval` loops for the causal LM objective (clm, GPT-2): data, steps, metrics,
// checkpoints, resume, Ctrl-C.
//
//   FitOptions options{.model_dir = "models/tiny", .data = {"data/corpus.txt"}, .seq_len = 64, .batch = 8,
//                      .steps = 200, .output = "models/tiny-fit"};
//   TOKVEC_RETURN_IF_ERROR(Fit(options));
//
// OUTDIR gets a model directory `embed`/`attend` load as it is (config.json, model.safetensors with Hugging Face
// names, the tokenizer files) plus optimizer.safetensors (AdamW moments or SGD momentum), trainer_state.json
// (training/trainer_state.h) and metrics.jsonl, one JSON object per logged step:
//   {"step": 0, "loss": 5.1, "lr": 0.0003, "grad_norm": 1.7, "tokens_per_s": 12000.0, "eval_loss": .., "eval_ppl": ..}
// `step` counts from 0, `loss` is the step's mean loss before its update, eval_* (when evaluated) are measured
// after it. A step is logged when step % log_every == 0, when it is the last step, or when it is evaluated.
//
// --resume reloads all of that from OUTDIR and continues; weights and optimizer state are then the same bytes as
// an uninterrupted run's. SIGINT (Ctrl-C) ends the current step, writes a checkpoint and returns Aborted (exit 1,
// naming the step saved).
#ifndef TOKVEC_TRAINING_FIT_H_
#define TOKVEC_TRAINING_FIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"
#include "training/gpt2_model.h"
#include "training/line_examples.h"
#include "training/token_stream.h"

namespace tokvec::training {

struct FitOptions {
  std::string objective = "clm";       // clm (gpt2), mlm (encoder; the tokenizer needs <mask> or [MASK]) or simcse
  bool lines = false;                  // --lines: each line is a row of its own, padded (simcse: always)
  std::string pooling = "auto";        // simcse: mean | cls | last | auto (mean for encoders, last for gpt2)
  double temperature = 0.05;           // simcse: τ (Gao et al. 2021)
  std::string model_dir;               // -m: the starting model (ignored for weights with resume)
  std::vector<std::string> data;       // --data files, in order
  std::vector<std::string> eval_data;  // --eval-data files
  int64_t seq_len = 0;                 // T
  int64_t batch = 0;                   // B
  int64_t steps = 0;                   // optimizer steps (or 0 with epochs)
  double epochs = 0;                   // passes over the stream's windows (or 0 with steps)
  double lr = 3e-4;
  std::string schedule = "cosine";
  int64_t warmup = 0;
  double weight_decay = 0.1;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double momentum = 0.9;
  std::string optimizer = "adamw";
  double clip = 1.0;                   // 0: no clipping
  int64_t grad_accum = 1;              // K micro-batches per step
  double dropout = -1;                 // GPT-2's embedding, attention and residual dropout; < 0: 0 (0.1 for simcse)
  bool shuffle = true;
  uint64_t seed = 0;                   // window shuffle and dropout masks
  int threads = 1;
  int64_t log_every = 10;
  int64_t eval_every = 0;              // 0: evaluate after the last step only (when eval_data is given)
  int64_t save_every = 0;              // 0: checkpoint at the end (and on Ctrl-C) only
  bool resume = false;
  int64_t stop_after = 0;              // > 0: stop with a checkpoint after this many steps of this run (tests)
  std::string output;                  // -o OUTDIR
};

absl::Status Fit(const FitOptions& options);

// How mlm batches are masked (ApplyMlmMasking).
struct MlmMasking {
  int32_t mask_id = 0;
  uint64_t seed = 0;
};

// The model's objective for `objective` ("clm" needs a gpt2 model, "mlm" an encoder and a mask token):
// nullopt for clm, the masking for mlm; InvalidArgument naming what is missing otherwise.
absl::StatusOr<std::optional<MlmMasking>> ObjectiveMasking(std::string_view objective, const Gpt2Model& model,
                                                           const Tokenizer& tokenizer, std::string_view source,
                                                           uint64_t seed);

// The pooling simcse trains with: `name` (mean, cls or last), or for "auto" mean for a bidirectional model and last
// for a causal one (the only position that sees the whole line). InvalidArgument for anything else.
absl::StatusOr<Pooling> SimcsePooling(std::string_view name, const Gpt2Model& model);

// Mean loss over every example of `lines` in order (B per batch, rows of T): clm and mlm as EvaluateStream; with
// simcse (pairs of the same line, dropout off) the InfoNCE loss of each batch of B lines (a last batch of one line
// is left out: it has no negative). mlm masks are fixed (seed 0).
absl::StatusOr<LossSum> EvaluateLines(Gpt2Model& model, const LineExamples& lines, int64_t T, int64_t B, int threads,
                                      const std::optional<MlmMasking>& mlm,
                                      const std::optional<SimcseSettings>& simcse = std::nullopt);

// Mean loss over the stream's consecutive windows of T + 1 tokens (stride T, in order, B per batch); a stream
// shorter than T + 1 tokens is one window of all of it. InvalidArgument for fewer than 2 tokens. With mlm, each
// window's T inputs are masked (window w is row w) and the loss is over the masked positions.
absl::StatusOr<LossSum> EvaluateStream(Gpt2Model& model, const TokenStream& stream, int64_t T, int64_t B,
                                       int threads, const std::optional<MlmMasking>& mlm = std::nullopt);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_FIT_H_
