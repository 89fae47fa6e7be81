#include "training/fit.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"
#include "training/optimizer.h"
#include "training/train_step.h"
#include "training/trainer_state.h"

namespace tokvec::training {
namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

// While alive, SIGINT only sets g_interrupted (the loop checkpoints and stops); the previous handler is restored
// after.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    struct sigaction action = {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptGuard() { sigaction(SIGINT, &previous_, nullptr); }

 private:
  struct sigaction previous_ = {};
};

// Tokenizer files a model directory may hold; they are copied into OUTDIR as they are.
bool IsTokenizerFile(const fs::path& path) {
  const std::string name = path.filename().string();
  return name == "tokenizer.tokvec" || name == "tokenizer.json" || name == "vocab.json" || name == "merges.txt" ||
         name == "tokenizer_config.json" || name == "special_tokens_map.json" || path.extension() == ".tiktoken";
}

absl::Status CopyFile(const fs::path& from, const fs::path& to) {
  TOKVEC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(from.string()));
  return WriteFileAtomically(to.string(), bytes);
}

// Everything --resume needs, written file by file (each atomically); trainer_state.json last, so a checkpoint
// interrupted half-way still names the step its weights were saved at... except when only some files were
// replaced, which the step in trainer_state.json (written last) then undercounts; the next save repairs it.
absl::Status SaveCheckpoint(const fs::path& out, const Gpt2Model& model, const Optimizer& optimizer,
                            const TrainerState& state) {
  TOKVEC_RETURN_IF_ERROR(model.Save((out / "model.safetensors").string()));
  TOKVEC_RETURN_IF_ERROR(WriteSafetensors((out / "optimizer.safetensors").string(), optimizer.StateTensors(),
                                          {{"format", "tokvec-optimizer"}, {"optimizer", state.optimizer}}));
  return WriteFileAtomically((out / "trainer_state.json").string(), TrainerStateToJson(state));
}

// sentence-transformers' modules.json + 1_Pooling/config.json naming the pooling a simcse model was trained with,
// so `tokvec embed --pooling auto` (pipeline/pooling.h) and sentence-transformers pool its vectors the same way.
absl::Status WritePoolingModules(const fs::path& out, Pooling pooling, int64_t dim) {
  nlohmann::ordered_json modules = nlohmann::ordered_json::array();
  modules.push_back({{"idx", 0}, {"name", "0"}, {"path", ""}, {"type", "sentence_transformers.models.Transformer"}});
  modules.push_back(
      {{"idx", 1}, {"name", "1"}, {"path", "1_Pooling"}, {"type", "sentence_transformers.models.Pooling"}});
  nlohmann::ordered_json config;
  config["word_embedding_dimension"] = dim;
  config["pooling_mode_cls_token"] = pooling == Pooling::kCls;
  config["pooling_mode_mean_tokens"] = pooling == Pooling::kMean;
  config["pooling_mode_max_tokens"] = false;
  config["pooling_mode_mean_sqrt_len_tokens"] = false;
  config["pooling_mode_lasttoken"] = pooling == Pooling::kLast;
  std::error_code error;
  fs::create_directories(out / "1_Pooling", error);
  if (error) return absl::PermissionDeniedError(fmt::format("cannot create '{}': {}", (out / "1_Pooling").string(),
                                                            error.message()));
  TOKVEC_RETURN_IF_ERROR(WriteFileAtomically((out / "1_Pooling" / "config.json").string(), config.dump(2) + "\n"));
  return WriteFileAtomically((out / "modules.json").string(), modules.dump(2) + "\n");
}

// A sentence-transformers directory's modules.json and its module folders (1_Pooling/, 2_Normalize/, ...), so the
// trained model pools and normalises as the one it started from.
absl::Status CopySentenceTransformersModules(const fs::path& from, const fs::path& out) {
  if (!fs::exists(from / "modules.json")) return absl::OkStatus();
  TOKVEC_RETURN_IF_ERROR(CopyFile(from / "modules.json", out / "modules.json"));
  for (const auto& folder : fs::directory_iterator(from)) {
    if (!folder.is_directory()) continue;
    std::error_code error;
    fs::create_directories(out / folder.path().filename(), error);
    if (error) return absl::PermissionDeniedError(fmt::format("cannot create '{}': {}",
                                                              (out / folder.path().filename()).string(),
                                                              error.message()));
    for (const auto& file : fs::directory_iterator(folder.path())) {
      if (file.is_regular_file()) {
        TOKVEC_RETURN_IF_ERROR(CopyFile(file.path(), out / folder.path().filename() / file.path().filename()));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOption(bool ok, std::string_view message) {
  return ok ? absl::OkStatus() : absl::InvalidArgumentError(std::string(message));
}

std::string FormatDuration(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s / 60 % 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

}  // namespace

absl::StatusOr<std::optional<MlmMasking>> ObjectiveMasking(std::string_view objective, const Gpt2Model& model,
                                                           const Tokenizer& tokenizer, std::string_view source,
                                                           uint64_t seed) {
  const ModelConfig& config = model.config();
  if (objective == "clm") {
    if (config.arch != Architecture::kGpt2) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: --objective clm needs a causal model (gpt2); this model is '{}', whose attention sees later tokens "
          "(train it with --objective mlm)",
          source, config.model_type));
    }
    return std::optional<MlmMasking>();
  }
  if (objective == "mlm") {
    if (config.arch == Architecture::kGpt2) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: --objective mlm needs a bidirectional model (tokvec init --arch encoder, or RoBERTa); this model is "
          "'{}'", source, config.model_type));
    }
    const std::optional<int32_t> mask = MaskTokenId(tokenizer);
    if (!mask || *mask >= config.vocab_size) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: --objective mlm needs a mask token ('<mask>' or '[MASK]') in the tokenizer; train one with "
          "--special '<mask>'",
          source));
    }
    return std::optional<MlmMasking>(MlmMasking{.mask_id = *mask, .seed = seed});
  }
  if (objective == "simcse") return std::optional<MlmMasking>();  // any model: the loss is on hidden states
  return absl::InvalidArgumentError(
      fmt::format("unknown --objective '{}'; use clm (gpt2 models), mlm (encoder models) or simcse", objective));
}

absl::StatusOr<Pooling> SimcsePooling(std::string_view name, const Gpt2Model& model) {
  if (name == "auto") return model.config().arch == Architecture::kGpt2 ? Pooling::kLast : Pooling::kMean;
  absl::StatusOr<Pooling> pooling = ParsePooling(name);
  if (!pooling.ok() || !SimcsePoolingSupported(*pooling)) {
    return absl::InvalidArgumentError(fmt::format("--pooling {}: simcse pools with mean, cls, last or auto", name));
  }
  return *pooling;
}

absl::StatusOr<LossSum> EvaluateLines(Gpt2Model& model, const LineExamples& lines, int64_t T, int64_t B, int threads,
                                      const std::optional<MlmMasking>& mlm,
                                      const std::optional<SimcseSettings>& simcse) {
  const LineObjective objective = simcse ? LineObjective::kSimcse : mlm ? LineObjective::kMlm : LineObjective::kClm;
  const int64_t vocab = model.config().vocab_size;
  LossSum total;
  for (int64_t e = 0; e < lines.size(); e += B) {
    const int64_t rows = std::min(B, lines.size() - e);
    if (simcse && rows < 2) break;  // one line has no negative
    const MicroBatch batch = LineBatch(lines, objective, e, rows, T, /*shuffle=*/false, 0, 0,
                                       mlm ? mlm->mask_id : 0, vocab, mlm ? mlm->seed : 0);
    LossSum loss;
    if (simcse) {
      const SimcseShape shape = SimcseShapeOf(batch, model.config().d_model, *simcse, 1.0f);
      TOKVEC_ASSIGN_OR_RETURN(loss, model.EvaluateHidden(batch.inputs, batch.B, T, threads, batch.key_lengths,
                                                         SimcseHead(shape)));
    } else {
      TOKVEC_ASSIGN_OR_RETURN(loss, model.Evaluate(batch.inputs, batch.targets, batch.B, T, threads,
                                                   batch.key_lengths));
    }
    total.sum += loss.sum;
    total.count += loss.count;
  }
  if (total.count == 0) {
    return absl::InvalidArgumentError(simcse ? "evaluation data holds fewer than 2 lines; simcse needs 2"
                                             : "evaluation data has no token to predict");
  }
  return total;
}

absl::StatusOr<LossSum> EvaluateStream(Gpt2Model& model, const TokenStream& stream, int64_t T, int64_t B,
                                       int threads, const std::optional<MlmMasking>& mlm) {
  if (stream.size() < 2) {
    return absl::InvalidArgumentError(
        fmt::format("evaluation data holds {} token(s); at least 2 are needed to predict one", stream.size()));
  }
  if (stream.size() <= T) T = stream.size() - 1;
  const int64_t windows = stream.Windows(T);
  LossSum total;
  for (int64_t w = 0; w < windows; w += B) {
    const int64_t rows = std::min(B, windows - w);
    MicroBatch batch = stream.Batch(w, rows, T, /*shuffle=*/false, 0);
    if (mlm) ApplyMlmMasking(batch, w, mlm->mask_id, model.config().vocab_size, mlm->seed);
    TOKVEC_ASSIGN_OR_RETURN(LossSum loss, model.Evaluate(batch.inputs, batch.targets, rows, T, threads));
    total.sum += loss.sum;
    total.count += loss.count;
  }
  return total;
}

absl::Status Fit(const FitOptions& o) {
  // 1. Options that need no files.
  TOKVEC_RETURN_IF_ERROR(CheckOption(o.seq_len > 0 && o.batch > 0 && o.grad_accum > 0,
                                     "--seq-len, --batch and --grad-accum must be positive"));
  TOKVEC_RETURN_IF_ERROR(CheckOption((o.steps > 0) != (o.epochs > 0), "give exactly one of --steps and --epochs"));
  TOKVEC_RETURN_IF_ERROR(CheckOption(o.lr > 0 && std::isfinite(o.lr), "--lr must be a positive number"));
  TOKVEC_RETURN_IF_ERROR(CheckOption(o.log_every > 0, "--log-every must be positive"));
  const bool simcse = o.objective == "simcse";
  const bool lines = o.lines || simcse;
  const double dropout = o.dropout >= 0 ? o.dropout : (simcse ? 0.1 : 0.0);
  TOKVEC_RETURN_IF_ERROR(CheckOption(dropout < 1, "--dropout must be in [0, 1)"));
  if (simcse) {
    TOKVEC_RETURN_IF_ERROR(CheckOption(
        dropout > 0, "--objective simcse needs --dropout > 0: a line's two encodings differ only by their dropout "
                     "masks (Gao et al. 2021 use 0.1, the default)"));
    TOKVEC_RETURN_IF_ERROR(CheckOption(o.batch >= 2,
                                       "--objective simcse needs --batch 2 or more: the other lines of a batch are "
                                       "each line's negatives"));
    TOKVEC_RETURN_IF_ERROR(CheckOption(o.temperature > 0 && std::isfinite(o.temperature),
                                       "--temperature must be a positive number"));
  } else {
    TOKVEC_RETURN_IF_ERROR(CheckOption(o.pooling == "auto", "--pooling applies to --objective simcse only"));
  }
  TOKVEC_ASSIGN_OR_RETURN(ScheduleKind schedule_kind, ParseSchedule(o.schedule));
  if (o.optimizer != "adamw" && o.optimizer != "sgd") {
    return absl::InvalidArgumentError(fmt::format("unknown optimizer '{}'; use adamw or sgd", o.optimizer));
  }
  const fs::path out(o.output);

  // 2. The model, tokenizer and (resume) state.
  TrainerState state;
  std::string source = o.model_dir;
  if (o.resume) {
    const fs::path state_path = out / "trainer_state.json";
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(state_path.string()));
    TOKVEC_ASSIGN_OR_RETURN(state, ParseTrainerState(text, state_path.string()));
    if (state.seq_len != o.seq_len || state.batch != o.batch || state.grad_accum != o.grad_accum ||
        state.seed != o.seed || state.shuffle != o.shuffle || state.optimizer != o.optimizer ||
        state.dropout != dropout || state.objective != o.objective || state.lines != lines ||
        (simcse && state.temperature != o.temperature)) {
      return absl::InvalidArgumentError(fmt::format(
          "--resume: {} was written by a run with --objective {} --seq-len {} --batch {} --grad-accum {} --seed {}{}{} "
          "--dropout {} --optimizer {}{}; resume with the same options",
          state_path.string(), state.objective, state.seq_len, state.batch, state.grad_accum, state.seed,
          state.shuffle ? "" : " --no-shuffle", state.lines ? " --lines" : "", state.dropout, state.optimizer,
          state.temperature > 0 ? fmt::format(" --temperature {}", state.temperature) : ""));
    }
    source = o.output;
  } else {
    std::error_code error;
    if (fs::exists(out, error) && (!fs::is_directory(out) || !fs::is_empty(out))) {
      return absl::AlreadyExistsError(fmt::format(
          "'{}' already exists and is not an empty directory; pick another -o, or pass --resume to continue the run "
          "saved there",
          o.output));
    }
  }
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Gpt2Model> model, Gpt2Model::Load(source));
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(source));
  const ModelConfig& config = model->config();
  TOKVEC_ASSIGN_OR_RETURN(const std::optional<MlmMasking> mlm,
                          ObjectiveMasking(o.objective, *model, *tokenizer, source, o.seed));
  if (model->head_initialized()) {
    std::fprintf(stderr, "note: %s has no lm_head (a RobertaModel checkpoint): its MLM head starts as transformers "
                 "initialises one (dense normal(0, 0.02), LayerNorm 1/0, biases 0)\n", source.c_str());
  }
  model->SetDropout(static_cast<float>(dropout));
  SimcseSettings simcse_settings{.temperature = static_cast<float>(o.temperature)};
  if (simcse) {
    TOKVEC_ASSIGN_OR_RETURN(simcse_settings.pooling, SimcsePooling(o.pooling, *model));
    if (o.resume && state.pooling != PoolingName(simcse_settings.pooling)) {
      return absl::InvalidArgumentError(fmt::format("--resume: the saved run pooled with {}, these options with {}",
                                                    state.pooling, PoolingName(simcse_settings.pooling)));
    }
  }
  if (static_cast<int64_t>(tokenizer->vocab_size()) > config.vocab_size) {
    return absl::InvalidArgumentError(fmt::format("{}: the tokenizer has {} tokens but the model only {} rows in wte",
                                                  source, tokenizer->vocab_size(), config.vocab_size));
  }
  if (o.seq_len > config.max_len) {
    return absl::InvalidArgumentError(
        fmt::format("--seq-len {} exceeds the model's n_positions {}", o.seq_len, config.max_len));
  }

  // 3. Data: windows of the token stream, or (--lines) one line per row.
  std::optional<TokenStream> stream, eval_stream;
  std::optional<LineExamples> line_examples, eval_lines;
  const LineObjective line_objective = simcse ? LineObjective::kSimcse
                                       : mlm  ? LineObjective::kMlm
                                              : LineObjective::kClm;
  // clm rows keep T + 1 tokens of a line: the inputs are the first T, the targets the last T.
  const int64_t line_tokens = line_objective == LineObjective::kClm ? o.seq_len + 1 : o.seq_len;
  if (lines) {
    TOKVEC_ASSIGN_OR_RETURN(line_examples, LineExamples::Encode(*tokenizer, o.data, line_tokens));
    if (simcse && line_examples->size() < 2) {
      return absl::InvalidArgumentError("--data holds 1 non-blank line; simcse needs 2 or more (in-batch negatives)");
    }
    if (line_examples->truncated() > 0) {
      std::fprintf(stderr, "note: %lld of %lld lines are longer than a row and keep their first %lld tokens\n",
                   static_cast<long long>(line_examples->truncated()), static_cast<long long>(line_examples->size()),
                   static_cast<long long>(line_tokens));
    }
    if (!o.eval_data.empty()) {
      TOKVEC_ASSIGN_OR_RETURN(eval_lines, LineExamples::Encode(*tokenizer, o.eval_data, line_tokens));
    }
  } else {
    TOKVEC_ASSIGN_OR_RETURN(stream, TokenStream::Encode(*tokenizer, o.data));
    if (stream->size() <= o.seq_len) {
      return absl::InvalidArgumentError(
          fmt::format("--data holds {} tokens; a row of --seq-len {} needs {}: give more data or a shorter --seq-len",
                      stream->size(), o.seq_len, o.seq_len + 1));
    }
    if (!o.eval_data.empty()) {
      TOKVEC_ASSIGN_OR_RETURN(eval_stream, TokenStream::Encode(*tokenizer, o.eval_data));
    }
  }
  const int32_t pad_id = EndOfTextId(*tokenizer).value_or(0);
  const int64_t examples = lines ? line_examples->size() : stream->Windows(o.seq_len);
  const int64_t rows_per_step = o.batch * o.grad_accum;
  const int64_t total_steps =
      o.steps > 0 ? o.steps
                  : std::max<int64_t>(1, static_cast<int64_t>(std::ceil(o.epochs * static_cast<double>(examples) /
                                                                        static_cast<double>(rows_per_step))));
  if (o.resume && state.total_steps != total_steps) {
    return absl::InvalidArgumentError(fmt::format(
        "--resume: the saved run has {} steps in total, these options give {}; the schedule depends on it",
        state.total_steps, total_steps));
  }
  if (!o.resume) {
    state = {.step = 0, .total_steps = total_steps, .seq_len = o.seq_len, .batch = o.batch,
             .grad_accum = o.grad_accum, .seed = o.seed, .shuffle = o.shuffle, .dropout = dropout,
             .optimizer = o.optimizer, .objective = o.objective, .lines = lines,
             .pooling = simcse ? std::string(PoolingName(simcse_settings.pooling)) : std::string(),
             .temperature = simcse ? o.temperature : 0.0};
  }

  // 4. Optimizer (state from OUTDIR when resuming), OUTDIR's static files.
  Optimizer optimizer({.kind = o.optimizer == "sgd" ? OptimizerKind::kSgd : OptimizerKind::kAdamW,
                       .beta1 = o.beta1, .beta2 = o.beta2, .eps = o.eps, .weight_decay = o.weight_decay,
                       .momentum = o.momentum},
                      model->parameters(), model->params().size());
  if (o.resume) {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> file,
                            SafetensorsFile::Open((out / "optimizer.safetensors").string()));
    TOKVEC_RETURN_IF_ERROR(optimizer.LoadState(*file, state.step));
  } else {
    std::error_code error;
    fs::create_directories(out, error);
    if (error) return absl::PermissionDeniedError(fmt::format("cannot create '{}': {}", o.output, error.message()));
    for (const auto& entry : fs::directory_iterator(o.model_dir)) {
      if (entry.is_regular_file() && (IsTokenizerFile(entry.path()) || entry.path().filename() == "config.json")) {
        TOKVEC_RETURN_IF_ERROR(CopyFile(entry.path(), out / entry.path().filename()));
      }
    }
    if (simcse) {
      TOKVEC_RETURN_IF_ERROR(WritePoolingModules(out, simcse_settings.pooling, config.d_model));
    } else {
      TOKVEC_RETURN_IF_ERROR(CopySentenceTransformersModules(o.model_dir, out));
    }
  }
  const Schedule schedule{.kind = schedule_kind, .lr = o.lr, .warmup = o.warmup, .total_steps = total_steps};
  std::FILE* metrics = std::fopen((out / "metrics.jsonl").c_str(), o.resume ? "a" : "w");
  if (metrics == nullptr) return absl::PermissionDeniedError(fmt::format("cannot write {}/metrics.jsonl", o.output));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> metrics_closer(metrics, std::fclose);

  // 5. The loop.
  const bool progress = isatty(STDERR_FILENO) != 0;
  InterruptGuard interrupt_guard;
  const auto run_start = std::chrono::steady_clock::now();
  int64_t run_steps = 0;
  for (; state.step < total_steps; ++run_steps) {
    if (g_interrupted || (o.stop_after > 0 && run_steps == o.stop_after)) break;
    const int64_t s = state.step;
    const auto step_start = std::chrono::steady_clock::now();
    std::vector<MicroBatch> batches;
    for (int64_t k = 0; k < o.grad_accum; ++k) {
      const int64_t first_row = (s * o.grad_accum + k) * o.batch;
      if (lines) {
        batches.push_back(LineBatch(*line_examples, line_objective, first_row, o.batch, o.seq_len, o.shuffle, o.seed,
                                    pad_id, mlm ? mlm->mask_id : 0, config.vocab_size, o.seed));
        continue;
      }
      batches.push_back(stream->Batch(first_row, o.batch, o.seq_len, o.shuffle, o.seed));
      if (mlm) ApplyMlmMasking(batches.back(), first_row, mlm->mask_id, config.vocab_size, o.seed);
    }
    TOKVEC_ASSIGN_OR_RETURN(StepResult result, TrainStep(*model, optimizer, schedule, o.clip, s, batches, o.threads,
                                                                 o.seed, simcse_settings));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
    state.step = s + 1;
    state.tokens_seen += result.tokens;
    const bool last = state.step == total_steps;
    const bool evaluate =
        (eval_stream || eval_lines) && (last || (o.eval_every > 0 && state.step % o.eval_every == 0));
    if (s % o.log_every == 0 || last || evaluate) {
      nlohmann::ordered_json line;
      line["step"] = s;
      line["loss"] = result.loss;
      line["lr"] = result.lr;
      line["grad_norm"] = result.grad_norm;
      line["tokens_per_s"] = seconds > 0 ? static_cast<double>(result.tokens) / seconds : 0.0;
      if (evaluate) {
        const std::optional<MlmMasking> eval_mlm =
            mlm ? std::optional<MlmMasking>(MlmMasking{.mask_id = mlm->mask_id, .seed = 0}) : std::nullopt;
        TOKVEC_ASSIGN_OR_RETURN(
            LossSum eval,
            lines ? EvaluateLines(*model, *eval_lines, o.seq_len, o.batch, o.threads, eval_mlm,
                                  simcse ? std::optional<SimcseSettings>(simcse_settings) : std::nullopt)
                  : EvaluateStream(*model, *eval_stream, o.seq_len, o.batch, o.threads, eval_mlm));
        line["eval_loss"] = eval.mean();
        if (!simcse) line["eval_ppl"] = std::exp(eval.mean());  // a perplexity only of a language model
      }
      const std::string text = line.dump() + "\n";
      std::fputs(text.c_str(), metrics);
      std::fflush(metrics);
    }
    if (progress) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
      const double eta = elapsed / static_cast<double>(run_steps + 1) * static_cast<double>(total_steps - state.step);
      std::fprintf(stderr, "\rstep %lld/%lld  loss %.4f  lr %.3g  %.0f tok/s  ETA %s   ",
                   static_cast<long long>(state.step), static_cast<long long>(total_steps), result.loss, result.lr,
                   seconds > 0 ? static_cast<double>(result.tokens) / seconds : 0.0, FormatDuration(eta).c_str());
    }
    if (o.save_every > 0 && state.step % o.save_every == 0 && !last) {
      TOKVEC_RETURN_IF_ERROR(SaveCheckpoint(out, *model, optimizer, state));
    }
  }
  if (progress) std::fprintf(stderr, "\n");
  TOKVEC_RETURN_IF_ERROR(SaveCheckpoint(out, *model, optimizer, state));
  if (g_interrupted) {
    return absl::AbortedError(fmt::format(
        "interrupted; checkpoint at step {} of {} saved in {}; continue with the same options and --resume",
        state.step, total_steps, o.output));
  }
  std::fprintf(stderr, "wrote %s: step %lld of %lld, %lld tokens seen\n", o.output.c_str(),
               static_cast<long long>(state.step), static_cast<long long>(total_steps),
               static_cast<long long>(state.tokens_seen));
  return absl::OkStatus();
}

}  // namespace tokvec::training
