#include "models/transformer_block.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "fmt/format.h"

namespace tokvec {
namespace {

// Position-wise feed-forward: act(x·W_1 + b_1)·W_2 + b_2, or gated act(input)·gate·W_2 + b_2.   x: [T, D] -> [T, D]
Matrix FeedForward(MatrixView x, const FeedForwardWeights& w, Activation activation, int threads) {
  Matrix hidden(x.rows, w.up.out_features());  // [T, F] (gated: [T, 2F])
  LinearInto(x, w.up, hidden.data(), threads);
  if (w.gated) {
    Matrix gated(x.rows, w.up.out_features() / 2);  // [T, F]
    GatedActivationInto(activation, hidden.data(), x.rows, gated.cols(), gated.data(), threads);
    hidden = std::move(gated);
  } else {
    ApplyActivation(activation, hidden.storage(), threads);
  }
  Matrix out(x.rows, w.down.out_features());  // [T, D]
  LinearInto(hidden.view(), w.down, out.data(), threads);
  return out;
}

void AddInPlace(const Matrix& delta, Matrix* x) {
  float* dst = x->data();
  const float* src = delta.data();
  for (int64_t i = 0; i < x->size(); ++i) dst[i] += src[i];
}

Matrix Normalized(MatrixView x, const LayerNormWeights& w) {
  Matrix y(x.rows, x.cols);  // [T, D]
  LayerNormInto(x, w, y.data());
  return y;
}

Matrix Copy(MatrixView x) {
  Matrix y(x.rows, x.cols);
  std::copy_n(x.data, x.size(), y.data());
  return y;
}

}  // namespace

float AttentionScale(const BlockConfig& config, int64_t head_dim) {
  return config.attention_scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim))));
}

absl::Status ValidateTransformerBlock(const TransformerBlockWeights& w, const BlockConfig& config,
                                      int64_t d_model, std::string_view name) {
  MultiHeadAttentionWeights attention = w.attention;
  attention.n_heads = config.n_heads;
  if (absl::Status s = ValidateMultiHeadAttention(attention, d_model, d_model); !s.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", name, std::string(s.message())));
  }
  if (BlockRotary(w, config) && (d_model / config.n_heads) % 2 != 0) {
    return absl::InvalidArgumentError(fmt::format("{}: rotary positions need an even head_dim, got {}", name,
                                                  d_model / config.n_heads));
  }
  if (config.relative_bias &&
      (config.relative_bias->n_heads != config.n_heads || !w.attention.kind.full() || config.causal)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: a relative position bias of {} heads needs {} bidirectional full-attention heads", name,
        config.relative_bias->n_heads, config.n_heads));
  }
  const std::string prefix(name);
  if (w.skip_attention_norm && config.norm != NormPlacement::kPreLN) {
    return absl::InvalidArgumentError(fmt::format("{}: only a pre-LN block can skip its attention norm", name));
  }
  if (!w.skip_attention_norm) {
    if (absl::Status s = ValidateLayerNorm(w.attention_norm, d_model, prefix + " attention_norm"); !s.ok()) return s;
  }
  if (absl::Status s = ValidateLayerNorm(w.feed_forward_norm, d_model, prefix + " feed_forward_norm"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateLinear(w.feed_forward.up, d_model, 0, prefix + " feed_forward.up"); !s.ok()) {
    return s;
  }
  const int64_t up_out = w.feed_forward.up.out_features();
  if (w.feed_forward.gated && up_out % 2 != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{} feed_forward.up: a gated feed-forward needs an even width ([input | gate]), got {}", name, up_out));
  }
  return ValidateLinear(w.feed_forward.down, w.feed_forward.gated ? up_out / 2 : up_out, d_model,
                        prefix + " feed_forward.down");
}

absl::StatusOr<BlockOutput> RunTransformerBlock(const TransformerBlockWeights& w, const BlockConfig& config,
                                                MatrixView x, const BlockOptions& options) {
  if (absl::Status s = ValidateTransformerBlock(w, config, x.cols, "transformer block"); !s.ok()) return s;
  MultiHeadAttentionWeights attention = w.attention;
  attention.n_heads = config.n_heads;
  MultiHeadAttentionOptions mha;
  mha.causal = config.causal;
  mha.mask = options.mask;
  mha.rotary = BlockRotary(w, config);
  mha.first_position = options.first_position;
  mha.threads = options.threads;
  mha.keep_weights = options.keep_weights;
  mha.scale = config.attention_scale;
  mha.relative_bias = config.relative_bias.get();

  BlockOutput result;
  if (config.norm == NormPlacement::kPreLN) {
    // h = x + MHA(LN1(x)); out = h + FFN(LN2(h))
    const Matrix normed = w.skip_attention_norm ? Copy(x) : Normalized(x, w.attention_norm);  // [T, D]
    absl::StatusOr<MultiHeadAttentionOutput> attended = SelfAttention(normed.view(), attention, mha);
    if (!attended.ok()) return attended.status();
    Matrix h = Copy(x);  // [T, D]
    AddInPlace(attended->output, &h);
    const Matrix ffn = FeedForward(Normalized(h.view(), w.feed_forward_norm).view(), w.feed_forward,
                                   config.activation, options.threads);  // [T, D]
    AddInPlace(ffn, &h);
    result.hidden = std::move(h);
    result.head_weights = std::move(attended->head_weights);
  } else {
    // h = LN1(x + MHA(x)); out = LN2(h + FFN(h))
    absl::StatusOr<MultiHeadAttentionOutput> attended = SelfAttention(x, attention, mha);
    if (!attended.ok()) return attended.status();
    Matrix sum = Copy(x);  // [T, D]
    AddInPlace(attended->output, &sum);
    const Matrix h = Normalized(sum.view(), w.attention_norm);  // [T, D]
    Matrix sum2 = FeedForward(h.view(), w.feed_forward, config.activation, options.threads);  // [T, D]
    AddInPlace(h, &sum2);
    result.hidden = Normalized(sum2.view(), w.feed_forward_norm);
    result.head_weights = std::move(attended->head_weights);
  }
  return result;
}

absl::StatusOr<StackOutput> RunTransformerStack(const TransformerStack& stack, MatrixView x,
                                                const StackOptions& options) {
  const int64_t n_layers = static_cast<int64_t>(stack.blocks.size());
  for (int64_t layer : options.keep_weights_of) {
    if (layer < 0 || layer >= n_layers) {
      return absl::OutOfRangeError(fmt::format(
          "attention weights asked for layer {}, but the model has {} layers (0..{})", layer, n_layers,
          n_layers - 1));
    }
  }
  if (stack.final_norm) {
    if (absl::Status s = ValidateLayerNorm(*stack.final_norm, x.cols, "final_norm"); !s.ok()) return s;
  }
  StackOutput result;
  Matrix hidden = Copy(x);  // [T, D]
  for (int64_t layer = 0; layer < n_layers; ++layer) {
    BlockOptions block_options;
    block_options.threads = options.threads;
    block_options.mask = options.mask;
    block_options.first_position = options.first_position;
    block_options.keep_weights = std::find(options.keep_weights_of.begin(), options.keep_weights_of.end(),
                                           layer) != options.keep_weights_of.end();
    absl::StatusOr<BlockOutput> out =
        RunTransformerBlock(stack.blocks[static_cast<size_t>(layer)], stack.config, hidden.view(), block_options);
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          fmt::format("layer {}: {}", layer, std::string(out.status().message())));
    }
    hidden = std::move(out->hidden);
    if (block_options.keep_weights) result.attention_weights[layer] = std::move(out->head_weights);
  }
  result.hidden = stack.final_norm ? Normalized(hidden.view(), *stack.final_norm) : std::move(hidden);
  return result;
}

}  // namespace tokvec
