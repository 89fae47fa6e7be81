#include "cli/bench_layer.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "cli/bench_timing.h"
#include "cli/usage_error.h"
#include "embeddings/random_init.h"
#include "fmt/format.h"
#include "kernels/low_precision_linear.h"
#include "kernels/pack_linears.h"
#include "models/batched_block.h"
#include "models/transformer_block.h"
#include "nlohmann/json.hpp"

namespace tokvec::cli {
namespace {

struct LayerBenchOptions {
  std::string dtype = "f32";
  int64_t d_model = 768;
  int64_t n_heads = 12;
  int64_t ff = 3072;
  int64_t batch = 8;
  int64_t seq_len = 128;
  int threads = 2;
  int repeats = 20;
  std::string method = "batched";  // batched | reference
  uint64_t seed = 42;
};

// Owned random parameters of an nn.TransformerEncoderLayer (PyTorch layouts: in_proj [3D, D], linear [out, in]).
struct EncoderLayerParameters {
  Matrix in_proj, in_bias, out_proj, out_bias, linear1, bias1, linear2, bias2, ones, zeros;
  TransformerBlockWeights weights;
};

std::span<const float> Span(const Matrix& m) { return {m.data(), static_cast<size_t>(m.size())}; }

std::unique_ptr<EncoderLayerParameters> RandomEncoderLayer(int64_t d, int64_t f, uint64_t seed) {
  auto p = std::make_unique<EncoderLayerParameters>();
  NormalSampler s(seed);
  p->in_proj = s.Matrix(3 * d, d, 0.02f);
  p->in_bias = s.Matrix(1, 3 * d, 0.02f);
  p->out_proj = s.Matrix(d, d, 0.02f);
  p->out_bias = s.Matrix(1, d, 0.02f);
  p->linear1 = s.Matrix(f, d, 0.02f);
  p->bias1 = s.Matrix(1, f, 0.02f);
  p->linear2 = s.Matrix(d, f, 0.02f);
  p->bias2 = s.Matrix(1, d, 0.02f);
  p->ones = Matrix(1, d);
  std::fill(p->ones.storage().begin(), p->ones.storage().end(), 1.0f);
  p->zeros = Matrix(1, d);
  TransformerBlockWeights& w = p->weights;
  w.attention.qkv = {.weight = p->in_proj.view(), .bias = Span(p->in_bias), .layout = WeightLayout::kOutIn};
  w.attention.out = {.weight = p->out_proj.view(), .bias = Span(p->out_bias), .layout = WeightLayout::kOutIn};
  w.feed_forward.up = {.weight = p->linear1.view(), .bias = Span(p->bias1), .layout = WeightLayout::kOutIn};
  w.feed_forward.down = {.weight = p->linear2.view(), .bias = Span(p->bias2), .layout = WeightLayout::kOutIn};
  w.attention_norm = {.gamma = Span(p->ones), .beta = Span(p->zeros)};
  w.feed_forward_norm = {.gamma = Span(p->ones), .beta = Span(p->zeros)};
  return p;
}

absl::Status RunLayerBench(const LayerBenchOptions& o) {
  if (o.d_model <= 0 || o.n_heads <= 0 || o.ff <= 0 || o.batch <= 0 || o.seq_len <= 0 || o.threads <= 0) {
    return absl::InvalidArgumentError(UsageErrorText("every size and --threads must be > 0"));
  }
  if (o.method != "batched" && o.method != "reference") {
    return absl::InvalidArgumentError(
        UsageErrorText(fmt::format("unknown --method '{}'; expected batched or reference", o.method)));
  }
  const std::unique_ptr<EncoderLayerParameters> p = RandomEncoderLayer(o.d_model, o.ff, o.seed);
  const BlockConfig config{.n_heads = o.n_heads, .norm = NormPlacement::kPostLN, .activation = Activation::kRelu,
                           .causal = false, .rotary = std::nullopt};
  if (absl::Status s = ValidateTransformerBlock(p->weights, config, o.d_model, "bench layer"); !s.ok()) return s;
  TOKVEC_ASSIGN_OR_RETURN(const LinearDtype dtype, ParseLinearDtype(o.dtype));
  std::vector<LinearWeights*> linears;  // the layer's projections and feed-forward (low_precision_linear.h)
  for (LinearWeights* w : {&p->weights.attention.qkv, &p->weights.attention.q, &p->weights.attention.k,
                           &p->weights.attention.v, &p->weights.attention.out, &p->weights.feed_forward.up,
                           &p->weights.feed_forward.down}) {
    if (!w->empty()) linears.push_back(w);
  }
  TOKVEC_ASSIGN_OR_RETURN(const std::vector<std::unique_ptr<LowPrecisionWeights>> packed, PackLayers(linears, dtype));
  PackedWeightStore packed_f32;  // f32 runs tokvec's AVX-512 GEMM, as embed's models do (pack_linears.h)
  if (dtype == LinearDtype::kF32) PackLinears(linears, &packed_f32);
  NormalSampler sampler(o.seed + 1);
  const Matrix x_random = sampler.Matrix(o.batch * o.seq_len, o.d_model, 1.0f);  // [B·T, D]
  // The batched path's input and output start on a 64-byte cache line, as its workspace buffers do (a model
  // owning its activations can do the same; a large vector's data is 16 bytes past a line).
  std::vector<float> x_storage(static_cast<size_t>(x_random.size()) + 16), y_storage(x_storage.size());
  auto aligned = [](std::vector<float>& v) {
    return v.data() + ((64 - reinterpret_cast<uintptr_t>(v.data()) % 64) % 64) / sizeof(float);
  };
  float* x_data = aligned(x_storage);
  std::copy(x_random.storage().begin(), x_random.storage().end(), x_data);
  const MatrixView x{x_data, x_random.rows(), x_random.cols()};  // [B·T, D]
  absl::Status status;
  std::function<void()> run;
  // Workspace and output reused across runs, as across the layers of a model (which alternates two buffers).
  BatchedBlockWorkspace workspace;
  float* y = aligned(y_storage);  // [B·T, D]
  if (o.method == "batched") {
    run = [&] {
      if (absl::Status s = RunTransformerBlockBatchedInto(p->weights, config, x, o.batch, o.threads, &workspace, y);
          !s.ok()) {
        status = s;
      }
    };
  } else {
    run = [&] {
      for (int64_t b = 0; b < o.batch; ++b) {
        BlockOptions options;
        options.threads = o.threads;
        absl::StatusOr<BlockOutput> y =
            RunTransformerBlock(p->weights, config, {x.row(b * o.seq_len), o.seq_len, o.d_model}, options);
        if (!y.ok()) status = y.status();
      }
    };
  }
  const double ms = MedianMs(o.repeats, run);
  if (!status.ok()) return status;
  const double tokens = static_cast<double>(o.batch * o.seq_len);
  nlohmann::json line = {{"bench", "layer"},       {"method", o.method},
                         {"d_model", o.d_model},   {"heads", o.n_heads},
                         {"ff", o.ff},             {"batch", o.batch},
                         {"seq_len", o.seq_len},   {"threads", o.threads},     {"dtype", o.dtype},
                         {"repeats", o.repeats},   {"ms", ms},
                         {"tokens_per_s", tokens / (ms / 1000.0)}, {"peak_rss_mb", PeakRssMb()}};
  std::printf("%s\n", line.dump().c_str());
  return absl::OkStatus();
}

}  // namespace

void RegisterLayerBench(CLI::App& bench, CommandAction* action) {
  auto l = std::make_shared<LayerBenchOptions>();
  CLI::App* layer = bench.add_subcommand(
      "layer", "One post-LN ReLU encoder layer (nn.TransformerEncoderLayer's default) on a batch");
  layer->add_option("--d-model", l->d_model, "Model width D")->capture_default_str();
  layer->add_option("--heads", l->n_heads, "Number of heads H")->capture_default_str();
  layer->add_option("--ff", l->ff, "Feed-forward width F")->capture_default_str();
  layer->add_option("--batch", l->batch, "Sequences per batch B")->capture_default_str();
  layer->add_option("--seq-len", l->seq_len, "Tokens per sequence T")->capture_default_str();
  layer->add_option("--threads", l->threads, "Threads")->capture_default_str();
  layer->add_option("--repeats", l->repeats, "Timed runs (median reported)")->capture_default_str();
  layer->add_option("--method", l->method, "batched (one GEMM over B·T rows) or reference (per sequence)")
      ->capture_default_str();
  layer->add_option("--dtype", l->dtype, "Precision of the linear layers: f32 | bf16 | int8 (as embed --dtype)")
      ->check(CLI::IsMember({"f32", "bf16", "int8"}))
      ->capture_default_str();
  layer->add_option("--seed", l->seed, "Seed of the random weights and inputs")->capture_default_str();
  layer->callback([l, action] { *action = [l] { return RunLayerBench(*l); }; });
}

}  // namespace tokvec::cli
