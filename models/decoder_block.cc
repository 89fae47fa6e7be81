#include "models/decoder_block.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attention/flash_attention.h"
#include "attention/mask.h"
#include "attention/scaled_dot_product.h"
#include "fmt/format.h"
#include "kernels/tiled_linear.h"

namespace tokvec {
namespace {

constexpr int64_t kRowsPerTask = 32;  // rows of a [rows, D] pass (RMSNorm, SwiGLU) per ParallelFor index

// cos and sin of pos · theta^(-2i/Dh) for pos < seq_len, i < Dh/2: [T, Dh/2] each, in double.
struct RotaryTable {
  int64_t half = 0;
  std::vector<double> cos, sin;

  RotaryTable(int64_t seq_len, int64_t head_dim, double theta) : half(head_dim / 2) {
    cos.resize(static_cast<size_t>(seq_len * half));
    sin.resize(cos.size());
    for (int64_t i = 0; i < half; ++i) {
      const double inv_freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim));
      for (int64_t t = 0; t < seq_len; ++t) {
        const double angle = static_cast<double>(t) * inv_freq;
        cos[static_cast<size_t>(t * half + i)] = std::cos(angle);
        sin[static_cast<size_t>(t * half + i)] = std::sin(angle);
      }
    }
  }

  // Rotates one head of seq_len rows (row t at x + t * stride, position t) in place: "rotate half".
  void Apply(float* x, int64_t seq_len, int64_t stride) const {
    for (int64_t t = 0; t < seq_len; ++t) {
      float* row = x + t * stride;
      const double* c = cos.data() + t * half;
      const double* s = sin.data() + t * half;
      for (int64_t i = 0; i < half; ++i) {
        const double a = row[i], b = row[i + half];
        row[i] = static_cast<float>(a * c[i] - b * s[i]);
        row[i + half] = static_cast<float>(b * c[i] + a * s[i]);
      }
    }
  }
};

void NormRows(MatrixView x, const RmsNormWeights& w, float* y, int threads) {
  const int64_t tasks = (x.rows + kRowsPerTask - 1) / kRowsPerTask;
  ParallelFor(tasks, threads, [&](int64_t task) {
    const int64_t r0 = task * kRowsPerTask, rows = std::min(kRowsPerTask, x.rows - r0);
    RmsNormRows(x.data + r0 * x.cols, rows, x.cols, x.cols, w, y + r0 * x.cols, x.cols);
  });
}

// gate = silu(gate) ⊙ up, element-wise over [rows, F].
void SwiGlu(Matrix* gate, const Matrix& up, int threads) {
  const int64_t cols = gate->cols();
  const int64_t tasks = (gate->rows() + kRowsPerTask - 1) / kRowsPerTask;
  ParallelFor(tasks, threads, [&](int64_t task) {
    const int64_t begin = task * kRowsPerTask * cols;
    const int64_t end = std::min(gate->rows(), (task + 1) * kRowsPerTask) * cols;
    float* g = gate->data();
    const float* u = up.data();
    for (int64_t i = begin; i < end; ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
  });
}

absl::Status CheckLinear(const LinearWeights& w, int64_t in, int64_t out, int64_t layer, std::string_view name) {
  if (w.layout != WeightLayout::kOutIn) {
    return absl::InvalidArgumentError(fmt::format("layer {} {}: decoder weights are nn.Linear [out, in]", layer, name));
  }
  return ValidateLinear(w, in, out, fmt::format("layer {} {}", layer, name));
}

}  // namespace

absl::Status ValidateDecoderStack(const DecoderStack& stack, int64_t d_model) {
  const DecoderConfig& c = stack.config;
  if (c.n_heads <= 0 || c.n_kv_heads <= 0 || c.n_heads % c.n_kv_heads != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{} attention heads cannot share {} key/value heads: n_heads must be a multiple of n_kv_heads", c.n_heads,
        c.n_kv_heads));
  }
  if (c.head_dim <= 0 || c.head_dim % 2 != 0) {
    return absl::InvalidArgumentError(fmt::format("rotary positions need an even head_dim, got {}", c.head_dim));
  }
  const int64_t q_width = c.n_heads * c.head_dim, kv_width = c.n_kv_heads * c.head_dim;
  for (size_t i = 0; i < stack.layers.size(); ++i) {
    const DecoderLayerWeights& w = stack.layers[i];
    const int64_t layer = static_cast<int64_t>(i);
    const std::string name = fmt::format("layer {}", i);
    if (absl::Status s = ValidateRmsNorm(w.attention_norm, d_model, name + " input_layernorm"); !s.ok()) return s;
    if (absl::Status s = CheckLinear(w.q, d_model, q_width, layer, "q_proj"); !s.ok()) return s;
    if (absl::Status s = CheckLinear(w.k, d_model, kv_width, layer, "k_proj"); !s.ok()) return s;
    if (absl::Status s = CheckLinear(w.v, d_model, kv_width, layer, "v_proj"); !s.ok()) return s;
    if (absl::Status s = CheckLinear(w.o, q_width, d_model, layer, "o_proj"); !s.ok()) return s;
    if (w.q_norm.has_value() != w.k_norm.has_value()) {
      return absl::InvalidArgumentError(fmt::format("{}: q_norm and k_norm come together", name));
    }
    if (w.q_norm) {
      if (absl::Status s = ValidateRmsNorm(*w.q_norm, c.head_dim, name + " q_norm"); !s.ok()) return s;
      if (absl::Status s = ValidateRmsNorm(*w.k_norm, c.head_dim, name + " k_norm"); !s.ok()) return s;
    }
    if (absl::Status s = ValidateRmsNorm(w.feed_forward_norm, d_model, name + " post_attention_layernorm");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckLinear(w.gate, d_model, 0, layer, "gate_proj"); !s.ok()) return s;
    const int64_t f = w.gate.out_features();
    if (absl::Status s = CheckLinear(w.up, d_model, f, layer, "up_proj"); !s.ok()) return s;
    if (absl::Status s = CheckLinear(w.down, f, d_model, layer, "down_proj"); !s.ok()) return s;
  }
  return ValidateRmsNorm(stack.final_norm, d_model, "norm");
}

absl::StatusOr<DecoderOutput> RunDecoderStack(const DecoderStack& stack, MatrixView x,
                                              const DecoderRunOptions& options) {
  if (absl::Status s = ValidateDecoderStack(stack, x.cols); !s.ok()) return s;
  const DecoderConfig& c = stack.config;
  const int64_t rows = x.rows, d = x.cols, dh = c.head_dim;
  const int64_t seq_len = options.seq_len > 0 ? options.seq_len : rows;
  if (rows % seq_len != 0) {
    return absl::InvalidArgumentError(fmt::format("{} rows are not a batch of {}-token sequences", rows, seq_len));
  }
  const int64_t n_seqs = rows / seq_len, n_layers = static_cast<int64_t>(stack.layers.size());
  for (int64_t layer : options.keep_weights_of) {
    if (layer < 0 || layer >= n_layers) {
      return absl::OutOfRangeError(fmt::format(
          "attention weights asked for layer {}, but the model has {} layers (0..{})", layer, n_layers,
          n_layers - 1));
    }
    if (n_seqs != 1) return absl::InvalidArgumentError("attention weights are kept for one sequence at a time");
  }
  const int64_t q_width = c.n_heads * dh, kv_width = c.n_kv_heads * dh, group = c.n_heads / c.n_kv_heads;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));
  const RotaryTable rotary(seq_len, dh, c.rope_theta);
  const LinearEpilogue plain{.segment_rows = seq_len};

  DecoderOutput out;
  Matrix hidden(rows, d);  // [B·T, D], the residual stream
  std::copy_n(x.data, x.size(), hidden.data());
  Matrix normed(rows, d), q(rows, q_width), k(rows, kv_width), v(rows, kv_width), context(rows, q_width);
  for (int64_t layer = 0; layer < n_layers; ++layer) {
    const DecoderLayerWeights& w = stack.layers[static_cast<size_t>(layer)];
    // 1. Projections of RMSNorm(x).
    NormRows(hidden.view(), w.attention_norm, normed.data(), options.threads);
    TiledLinearInto(normed.view(), w.q, q.data(), options.threads, plain);
    TiledLinearInto(normed.view(), w.k, k.data(), options.threads, plain);
    TiledLinearInto(normed.view(), w.v, v.data(), options.threads, plain);
    // 2. Per sequence and head: (Qwen3) q_norm / k_norm, then RoPE; queries and keys as one task list.
    ParallelFor(n_seqs * (c.n_heads + c.n_kv_heads), options.threads, [&](int64_t task) {
      const int64_t b = task / (c.n_heads + c.n_kv_heads), head = task % (c.n_heads + c.n_kv_heads);
      const bool is_query = head < c.n_heads;
      Matrix& m = is_query ? q : k;
      const int64_t width = is_query ? q_width : kv_width;
      float* block = m.data() + b * seq_len * width + (is_query ? head : head - c.n_heads) * dh;
      const std::optional<RmsNormWeights>& norm = is_query ? w.q_norm : w.k_norm;
      if (norm) RmsNormRows(block, seq_len, dh, width, *norm, block, width);
      rotary.Apply(block, seq_len, width);
    });
    // 3. Causal attention per sequence and query head, reading the shared key/value head in place.
    const bool keep = std::find(options.keep_weights_of.begin(), options.keep_weights_of.end(), layer) !=
                      options.keep_weights_of.end();
    std::vector<Matrix> head_weights;
    if (keep) head_weights.assign(static_cast<size_t>(c.n_heads), Matrix(seq_len, seq_len));
    ParallelFor(n_seqs * c.n_heads, options.threads, [&](int64_t task) {
      const int64_t b = task / c.n_heads, h = task % c.n_heads, kv = h / group;
      const int64_t r0 = b * seq_len;
      const StridedView qv{q.data() + r0 * q_width + h * dh, seq_len, dh, q_width};
      const StridedView kv_k{k.data() + r0 * kv_width + kv * dh, seq_len, dh, kv_width};
      const StridedView kv_v{v.data() + r0 * kv_width + kv * dh, seq_len, dh, kv_width};
      float* dst = context.data() + r0 * q_width + h * dh;
      if (keep) {
        AttentionMask mask;
        mask.causal = true;
        AttendHead(qv, kv_k, kv_v, mask, scale, head_weights[static_cast<size_t>(h)].data(), dst, q_width);
      } else {
        thread_local FlashScratch scratch;
        FlashAttendHead(qv, kv_k, kv_v, /*causal=*/true, scale, &scratch, dst, q_width);
      }
    });
    if (keep) out.attention_weights[layer] = std::move(head_weights);
    // 4. x += o_proj(context), the residual added in the GEMM's epilogue.
    TiledLinearInto(context.view(), w.o, hidden.data(), options.threads,
                    LinearEpilogue{.residual = hidden.data(), .segment_rows = seq_len});
    // 5. x += down(silu(gate(h)) ⊙ up(h)), h = RMSNorm(x).
    NormRows(hidden.view(), w.feed_forward_norm, normed.data(), options.threads);
    Matrix gate(rows, w.gate.out_features()), up(rows, w.up.out_features());  // [B·T, F]
    TiledLinearInto(normed.view(), w.gate, gate.data(), options.threads, plain);
    TiledLinearInto(normed.view(), w.up, up.data(), options.threads, plain);
    SwiGlu(&gate, up, options.threads);
    TiledLinearInto(gate.view(), w.down, hidden.data(), options.threads,
                    LinearEpilogue{.residual = hidden.data(), .segment_rows = seq_len});
  }
  out.hidden = Matrix(rows, d);
  NormRows(hidden.view(), stack.final_norm, out.hidden.data(), options.threads);
  return out;
}

}  // namespace tokvec
