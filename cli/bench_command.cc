// `tokvec bench attention|layer|gemm` (gemm: cli/bench_gemm.h): times what a CLI cannot time from outside and prints one JSON line.
//
//   tokvec bench attention --seq-len 8192 --heads 12 --head-dim 64 --threads 1 [--causal] [--repeats 3]
//                          [--kind full|window:W|longformer:W,G|bigbird:B,R,G|linformer:K|performer:M|linear]
//   {"bench":"attention","kind":"full","ms":1890.2,"gflops":109.1,"sgemm_gflops":190.3,"ratio_to_sgemm":0.57,...}
//   tokvec bench attention --kind window:256 --seq-len 65536 --causal --repeats 1 --sgemm-size 0
//   {"bench":"attention","kind":"window:256","method":"attention_of_kind","ms":...,"tokens_per_s":...,...}
//   tokvec bench layer --d-model 768 --heads 12 --ff 3072 --batch 8 --seq-len 128 --threads 2
//   {"bench":"layer","ms":80.1,"tokens_per_s":12784,...}
//
// Honest timing: inputs are seeded random (NormalSampler), one warm-up run is excluded, `ms` is the median of
// --repeats runs of wall time (steady_clock), `peak_rss_mb` is the process's peak resident set (VmHWM)
// after the timed runs. Attention FLOPs are 4·Tq·Tk·Dh per head (Q·Kᵀ and P·V, 2 FLOPs per multiply-add),
// counting only visible keys when causal. `sgemm_gflops` is the median of single-thread cblas_sgemm 2048³ calls
// interleaved with the attention runs in the same process (its 48 MB are allocated after peak_rss_mb is read),
// making the ratio self-contained.
//
// --kind (attention_kind.h, docs/attention_kinds.md; default full, printed as "kind" by its canonical name):
// `full` times the tiled FlashAttendHead per head (--method flash) or the dense [T, T] AttendHead (--method
// reference) into one preallocated output. Every other kind times AttentionOfKind (kind_attention.h) as a layer
// calls it, "method":"attention_of_kind": its output [T, H·Dh] is allocated by each call (the previous one freed
// first) and each head gets a fresh HeadScratch. linformer gets seeded random E, F [K, T] (std 1/√T) and is
// bidirectional only (--causal is a usage error); performer gets PerformerFeatures(M, Dh, --seed); bigbird draws
// its random blocks from --seed. "gflops" and "ratio_to_sgemm" are printed for full and the sparse kinds (window,
// longformer, bigbird: 4·Dh per head per visible query-key pair of the pattern); the kernel kinds and linformer
// do no per-pair work, so they have neither. "tokens_per_s" is T over the median time.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attention/attention_kind.h"
#include "attention/flash_attention.h"
#include "attention/kernel_attention.h"
#include "attention/kind_attention.h"
#include "attention/scaled_dot_product.h"
#include "attention/sparse_pattern.h"
#include "base/status_macros.h"
#include "cli/bench_gemm.h"
#include "cli/bench_layer.h"
#include "cli/bench_timing.h"
#include "cli/command.h"
#include "cli/usage_error.h"
#include "embeddings/random_init.h"
#include "fmt/format.h"
#include "kernels/blas_kernels.h"
#include "kernels/ops.h"
#include "nlohmann/json.hpp"

namespace tokvec::cli {
namespace {

struct AttentionBenchOptions {
  int64_t seq_len = 1024;
  int64_t n_heads = 12;
  int64_t head_dim = 64;
  int threads = 1;
  bool causal = false;
  int repeats = 3;
  std::string method = "flash";  // flash | reference
  uint64_t seed = 42;
  int64_t sgemm_size = 2048;  // n of the n³ yardstick sgemm; 0 skips it
  std::string kind_text = "full";  // --kind as given
  AttentionKind kind;              // parsed from kind_text when the subcommand is chosen
};

// Query-key pairs a sparse kind's pattern lets through (the causal cut applied), summed over the queries.
absl::StatusOr<double> SparseVisiblePairs(const AttentionKind& kind, int64_t t, bool causal, uint64_t seed) {
  TOKVEC_ASSIGN_OR_RETURN(SparsePattern pattern, SparsePattern::Make(kind, t, causal, seed));
  std::vector<KeyInterval> intervals;
  double pairs = 0.0;
  for (int64_t i = 0; i < t; ++i) {
    pattern.RowIntervals(i, &intervals);
    for (const KeyInterval& interval : intervals) pairs += static_cast<double>(interval.end - interval.begin);
  }
  return pairs;
}

absl::Status RunAttentionBench(const AttentionBenchOptions& o) {
  if (o.seq_len <= 0 || o.n_heads <= 0 || o.head_dim <= 0 || o.threads <= 0) {
    return absl::InvalidArgumentError(UsageErrorText("--seq-len, --heads, --head-dim and --threads must be > 0"));
  }
  if (o.method != "flash" && o.method != "reference") {
    return absl::InvalidArgumentError(
        UsageErrorText(fmt::format("unknown --method '{}'; expected flash or reference", o.method)));
  }
  const bool full = o.kind.type == AttentionKindType::kFull;
  const std::string kind_name = AttentionKindName(o.kind);
  if (!full && o.method != "flash") {
    return absl::InvalidArgumentError(UsageErrorText(fmt::format(
        "--method {} is for --kind full; --kind {} runs AttentionOfKind (drop --method)", o.method, kind_name)));
  }
  if (o.causal && !o.kind.supports_causal()) {
    return absl::InvalidArgumentError(UsageErrorText(fmt::format(
        "--kind {} is bidirectional only (its projection mixes every position); drop --causal", kind_name)));
  }
  const int64_t t = o.seq_len, width = o.n_heads * o.head_dim;
  NormalSampler sampler(o.seed);
  const Matrix q = sampler.Matrix(t, width, 1.0f), k = sampler.Matrix(t, width, 1.0f),
               v = sampler.Matrix(t, width, 1.0f);  // [T, H·Dh] each
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(o.head_dim)));
  Matrix context;  // full: [T, H·Dh], written in place by every run
  // Other kinds: what AttentionOfKind needs besides q, k, v, and the output of its last call.
  AttentionKindWeights kind_weights{.kind = o.kind, .seed = o.seed};
  Matrix linformer_e, linformer_f;  // linformer: [K, T] each
  std::optional<Matrix> kind_output;
  absl::Status kind_status;
  std::function<void()> run;
  if (!full) {
    if (o.kind.type == AttentionKindType::kLinformer) {
      NormalSampler projections(o.seed + 1);
      const float stddev = static_cast<float>(1.0 / std::sqrt(static_cast<double>(t)));
      linformer_e = projections.Matrix(o.kind.rank, t, stddev);
      linformer_f = projections.Matrix(o.kind.rank, t, stddev);
      kind_weights.linformer_e = linformer_e.view();
      kind_weights.linformer_f = linformer_f.view();
    }
    if (o.kind.type == AttentionKindType::kPerformer) {
      TOKVEC_ASSIGN_OR_RETURN(Matrix features, PerformerFeatures(o.kind.features, o.head_dim, o.seed));
      kind_weights.performer_features = std::make_shared<const Matrix>(std::move(features));
    }
    const KindAttentionOptions options{.n_heads = o.n_heads, .causal = o.causal, .threads = o.threads};
    run = [&, options] {
      kind_output.reset();  // at most one output alive, as when a layer's previous output has been consumed
      absl::StatusOr<Matrix> out = AttentionOfKind(q.view(), k.view(), v.view(), kind_weights, options);
      if (!out.ok()) {
        kind_status = out.status();
        return;
      }
      kind_output = std::move(*out);
    };
  } else if (o.method == "flash") {
    context = Matrix(t, width);
    run = [&] {
      ParallelFor(o.n_heads, o.threads, [&](int64_t h) {
        thread_local FlashScratch scratch;  // kept per thread, as the batched block does
        const int64_t col = h * o.head_dim;
        FlashAttendHead({q.data() + col, t, o.head_dim, width}, {k.data() + col, t, o.head_dim, width},
                        {v.data() + col, t, o.head_dim, width}, o.causal, scale, &scratch, context.data() + col,
                        width);
      });
    };
  } else {
    context = Matrix(t, width);
    run = [&] {  // one [T, T] score matrix per head in flight
      AttentionMask mask;
      mask.causal = o.causal;
      ParallelFor(o.n_heads, o.threads, [&](int64_t h) {
        std::vector<float> scores(static_cast<size_t>(t * t));  // [T, T]
        const int64_t col = h * o.head_dim;
        AttendHead({q.data() + col, t, o.head_dim, width}, {k.data() + col, t, o.head_dim, width},
                   {v.data() + col, t, o.head_dim, width}, mask, scale, scores.data(), context.data() + col, width);
      });
    };
  }
  // Attention and the sgemm yardstick alternate (each attention run is followed by about half its time of
  // sgemm calls), so a busy shared machine slows both alike and the ratio stays meaningful.
  run();  // warm-up, excluded
  if (!kind_status.ok()) return kind_status;  // AttentionOfKind's own checks (sizes, the kind's tensors)
  const double rss_before_sgemm = PeakRssMb();
  std::optional<SgemmYardstick> sgemm;
  if (o.sgemm_size > 0) sgemm.emplace(o.sgemm_size);
  std::vector<double> times;
  for (int i = 0; i < std::max(o.repeats, 1); ++i) {
    times.push_back(TimeMs(run));
    if (sgemm) sgemm->Run(times.back() / 2.0);
  }
  if (!kind_status.ok()) return kind_status;
  const double ms = Median(times);
  const double rss = o.sgemm_size > 0 ? rss_before_sgemm : PeakRssMb();
  // Query-key pairs whose 4·Dh FLOPs per head are counted: every visible one for full, the pattern's for the
  // sparse kinds, none for linformer and the kernel kinds (no gflops then).
  std::optional<double> visible;
  if (full) {
    visible = o.causal ? static_cast<double>(t) * static_cast<double>(t + 1) / 2.0
                       : static_cast<double>(t) * static_cast<double>(t);
  } else if (o.kind.sparse()) {
    TOKVEC_ASSIGN_OR_RETURN(visible, SparseVisiblePairs(o.kind, t, o.causal, o.seed));
  }
  const double sgemm_gflops = sgemm ? sgemm->MedianGflops() : 0.0;
  nlohmann::json line = {{"bench", "attention"},
                         {"kind", kind_name},
                         {"method", full ? o.method : std::string("attention_of_kind")},
                         {"seq_len", t},
                         {"heads", o.n_heads},
                         {"head_dim", o.head_dim},
                         {"threads", o.threads},
                         {"causal", o.causal},
                         {"repeats", o.repeats},
                         {"ms", ms},
                         {"tokens_per_s", static_cast<double>(t) / (ms / 1000.0)},
                         {"sgemm_gflops", sgemm_gflops},
                         {"peak_rss_mb", rss},
                         {"blas_core", BlasCoreName()}};
  if (visible) {
    const double gflops = 4.0 * *visible * static_cast<double>(o.head_dim * o.n_heads) / (ms * 1e6);
    line["gflops"] = gflops;
    line["ratio_to_sgemm"] = sgemm ? gflops / sgemm_gflops : 0.0;
  }
  std::printf("%s\n", line.dump().c_str());
  return absl::OkStatus();
}

}  // namespace

void RegisterBenchCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("bench", "Time attention or one encoder layer; prints one JSON line");
  sub->require_subcommand(1);

  auto a = std::make_shared<AttentionBenchOptions>();
  CLI::App* attention = sub->add_subcommand("attention", "Multi-head scaled dot-product attention, no projections");
  attention->add_option("--seq-len", a->seq_len, "Sequence length T")->capture_default_str();
  attention->add_option("--heads", a->n_heads, "Number of heads H")->capture_default_str();
  attention->add_option("--head-dim", a->head_dim, "Width of each head Dh")->capture_default_str();
  attention->add_option("--threads", a->threads, "Threads (over heads)")->capture_default_str();
  attention->add_flag("--causal", a->causal, "Causal mask (skips fully masked key blocks)");
  attention->add_option("--repeats", a->repeats, "Timed runs (median reported)")->capture_default_str();
  attention->add_option("--method", a->method, "flash (tiled online softmax) or reference ([T, T] scores)")
      ->capture_default_str();
  attention->add_option("--seed", a->seed, "Seed of the random inputs")->capture_default_str();
  attention->add_option("--sgemm-size", a->sgemm_size, "n of the single-thread n³ sgemm yardstick (0: skip)")
      ->capture_default_str();
  attention
      ->add_option("--kind", a->kind_text,
                   "Kind of attention: full, window:W, longformer:W,G, bigbird:B,R,G, linformer:K, performer:M or "
                   "linear (docs/attention_kinds.md)")
      ->capture_default_str();
  attention->callback([a, action] {
    // A bad --kind is a parse error (exit 2) reading `error: attention kind '...': ...`, ParseAttentionKind's text.
    absl::StatusOr<AttentionKind> kind = ParseAttentionKind(a->kind_text);
    if (!kind.ok()) throw CLI::ValidationError(std::string(kind.status().message()));
    a->kind = *kind;
    *action = [a] { return RunAttentionBench(*a); };
  });

  RegisterLayerBench(*sub, action);
  RegisterGemmBench(*sub, action);
}

}  // namespace tokvec::cli
