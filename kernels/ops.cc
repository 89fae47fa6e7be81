#include "kernels/ops.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "kernels/blas_kernels.h"
#include "kernels/gelu_avx512.h"
#include "kernels/tiled_linear.h"

// OpenBLAS's own shutdown of its thread pool (it calls it at fork and at exit).
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

namespace tokvec {
namespace {

// LinearInto computes y in fixed tiles of kRowBlock rows x kColBlock output features, one cblas_sgemm each.
// The tiles do not depend on the thread count, so every output element comes from the same sgemm call shape
// whatever `threads` is: results are bit-identical for any thread count (splitting by thread count would not be:
// OpenBLAS picks kernels by matrix size). 128 x 512 ran at ~62 GFLOP/s single-threaded for [512, 768] x
// [768, 3072], against ~68 for one whole-matrix call and ~40 for 64-row full-width blocks.
constexpr int64_t kRowBlock = 128;
constexpr int64_t kColBlock = 512;

const char* LayoutName(WeightLayout layout) {
  return layout == WeightLayout::kOutIn ? "[out, in] (nn.Linear)" : "[in, out] (Conv1D)";
}

}  // namespace

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    openblas_set_num_threads(1);
    // OpenBLAS starts its worker threads when the library loads, and idle workers spin (sched_yield) for about
    // 2^28 cycles before they sleep: ~0.1 s of the other core at every `tokvec` start, 10-17% of the samples of
    // `tokvec encode` on 15 MB (perf), competing with our own second thread. We never use them: stop them.
    // (Not part of OpenBLAS's public header; weak, so another BLAS without it still links.)
    if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
    // Before any BLAS call, and with OpenBLAS's workers stopped (they read its kernel table, which the switch
    // empties for a moment): OpenBLAS may have fallen back to SSE3 kernels (blas_kernels.h).
    SelectBlasKernels();
  });
}

void ParallelFor(int64_t n, int threads, const std::function<void(int64_t)>& fn) {
  const int64_t workers = std::min<int64_t>(std::max(threads, 1), n);
  if (workers <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers - 1));
  for (int64_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

LinearWeights SliceOutputs(const LinearWeights& w, int64_t begin, int64_t count) {
  LinearWeights slice = w;
  slice.low = nullptr;  // packed for the whole layer only
  slice.packed = nullptr;  // the packed copy is of the whole matrix
  if (w.layout == WeightLayout::kOutIn) {
    slice.weight = {w.weight.data + begin * w.ld(), count, w.weight.cols};
    slice.row_stride = w.ld();
  } else {
    slice.weight = {w.weight.data + begin, w.weight.rows, count};
    slice.row_stride = w.ld();
  }
  if (!w.bias.empty()) slice.bias = w.bias.subspan(static_cast<size_t>(begin), static_cast<size_t>(count));
  return slice;
}

absl::Status ValidateLinear(const LinearWeights& w, int64_t in, int64_t out, std::string_view name) {
  if (w.empty()) return absl::InvalidArgumentError(fmt::format("linear layer {} has no weight", name));
  if (w.in_features() != in || (out > 0 && w.out_features() != out)) {
    return absl::InvalidArgumentError(fmt::format(
        "linear layer {} has weight shape [{}, {}] in layout {}, i.e. {} -> {} features; expected {} -> {}", name,
        w.weight.rows, w.weight.cols, LayoutName(w.layout), w.in_features(), w.out_features(), in,
        out > 0 ? fmt::format("{}", out) : std::string("any")));
  }
  if (!w.bias.empty() && static_cast<int64_t>(w.bias.size()) != w.out_features()) {
    return absl::InvalidArgumentError(fmt::format("linear layer {} has a bias of {} values; expected {}", name,
                                                  w.bias.size(), w.out_features()));
  }
  return absl::OkStatus();
}

void LinearInto(MatrixView x, const LinearWeights& w, float* y, int threads) {
  if (w.low != nullptr) {  // bf16 / int8 kernels (low_precision_linear.h)
    TiledLinearInto(x, w, y, threads);
    return;
  }
  UseSingleThreadedBlas();
  const int64_t in = w.in_features(), out = w.out_features();
  const CBLAS_TRANSPOSE trans_w = w.layout == WeightLayout::kOutIn ? CblasTrans : CblasNoTrans;
  if (in == 0) {  // empty product: y = b (sgemm rejects a zero leading dimension)
    for (int64_t r = 0; r < x.rows; ++r) {
      for (int64_t o = 0; o < out; ++o) y[r * out + o] = w.bias.empty() ? 0.0f : w.bias[static_cast<size_t>(o)];
    }
    return;
  }
  const int64_t row_blocks = (x.rows + kRowBlock - 1) / kRowBlock;
  const int64_t col_blocks = (out + kColBlock - 1) / kColBlock;
  ParallelFor(row_blocks * col_blocks, threads, [&](int64_t tile) {
    const int64_t row0 = (tile / col_blocks) * kRowBlock, col0 = (tile % col_blocks) * kColBlock;
    const int64_t rows = std::min(kRowBlock, x.rows - row0), cols = std::min(kColBlock, out - col0);
    const LinearWeights w_tile = SliceOutputs(w, col0, cols);
    float* y_tile = y + row0 * out + col0;  // [rows, cols], row stride out
    // y_tile = x_block · W[:, cols] (kInOut) or x_block · W[cols, :]ᵀ (kOutIn)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_w, static_cast<blasint>(rows), static_cast<blasint>(cols),
                static_cast<blasint>(in), 1.0f, x.row(row0), static_cast<blasint>(x.cols), w_tile.weight.data,
                static_cast<blasint>(w_tile.ld()), 0.0f, y_tile, static_cast<blasint>(out));
    if (!w_tile.bias.empty()) {
      for (int64_t r = 0; r < rows; ++r) {
        float* y_row = y_tile + r * out;
        for (int64_t o = 0; o < cols; ++o) y_row[o] += w_tile.bias[static_cast<size_t>(o)];
      }
    }
  });
}

absl::StatusOr<Matrix> Linear(MatrixView x, const LinearWeights& w, int threads) {
  if (absl::Status status = ValidateLinear(w, x.cols, 0, "input"); !status.ok()) return status;
  Matrix y(x.rows, w.out_features());  // [T, out]
  LinearInto(x, w, y.data(), threads);
  return y;
}

absl::Status ValidateLayerNorm(const LayerNormWeights& w, int64_t d_model, std::string_view name) {
  if (static_cast<int64_t>(w.gamma.size()) != d_model || static_cast<int64_t>(w.beta.size()) != d_model) {
    return absl::InvalidArgumentError(fmt::format(
        "LayerNorm {} has weight [{}] and bias [{}]; expected [{}] (d_model)", name, w.gamma.size(),
        w.beta.size(), d_model));
  }
  if (!(w.eps > 0.0f)) {
    return absl::InvalidArgumentError(fmt::format("LayerNorm {} has epsilon {}; it must be > 0", name, w.eps));
  }
  return absl::OkStatus();
}

void LayerNormInto(MatrixView x, const LayerNormWeights& w, float* y) {
  const int64_t d = x.cols;
  for (int64_t t = 0; t < x.rows; ++t) {
    const float* row = x.row(t);
    double sum = 0.0;
    for (int64_t i = 0; i < d; ++i) sum += row[i];
    const double mean = sum / static_cast<double>(d);
    double sq = 0.0;
    for (int64_t i = 0; i < d; ++i) sq += (row[i] - mean) * (row[i] - mean);
    const double inv_std = 1.0 / std::sqrt(sq / static_cast<double>(d) + w.eps);  // biased variance
    float* out = y + t * d;
    for (int64_t i = 0; i < d; ++i) {
      const size_t k = static_cast<size_t>(i);
      out[i] = static_cast<float>((row[i] - mean) * inv_std * w.gamma[k] + w.beta[k]);
    }
  }
}

absl::StatusOr<Matrix> LayerNorm(MatrixView x, const LayerNormWeights& w) {
  if (absl::Status status = ValidateLayerNorm(w, x.cols, "input"); !status.ok()) return status;
  Matrix y(x.rows, x.cols);  // [T, D]
  LayerNormInto(x, w, y.data());
  return y;
}

absl::StatusOr<Activation> ParseActivation(std::string_view name) {
  if (name == "relu") return Activation::kRelu;
  if (name == "gelu") return Activation::kGeluExact;
  if (name == "gelu_new" || name == "gelu_tanh" || name == "gelu_pytorch_tanh") return Activation::kGeluTanh;
  return absl::InvalidArgumentError(fmt::format(
      "unknown activation '{}'; expected relu, gelu (exact, erf) or gelu_new (tanh approximation)", name));
}

std::string_view ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kRelu: return "relu";
    case Activation::kGeluExact: return "gelu";
    case Activation::kGeluTanh: return "gelu_new";
  }
  return "relu";
}

void ApplyActivation(Activation activation, std::span<float> values) {
  switch (activation) {
    case Activation::kRelu:
      for (float& x : values) x = x > 0.0f ? x : 0.0f;
      return;
    case Activation::kGeluExact:
      if (GeluErfAvx512(values)) return;  // the same function, 16 floats at a time (gelu_avx512.h)
      for (float& x : values) {
        const double v = x;
        x = static_cast<float>(0.5 * v * (1.0 + std::erf(v * std::numbers::sqrt2 / 2.0)));
      }
      return;
    case Activation::kGeluTanh: {
      if (GeluTanhAvx512(values)) return;  // the same formula, 16 floats at a time (gelu_avx512.h)
      const double k = std::sqrt(2.0 / std::numbers::pi);
      for (float& x : values) {
        const double v = x;
        x = static_cast<float>(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
      }
      return;
    }
  }
}

void ApplyActivation(Activation activation, std::span<float> values, int threads) {
  constexpr size_t kChunk = 16384;  // elements per task
  const int64_t chunks = static_cast<int64_t>((values.size() + kChunk - 1) / kChunk);
  ParallelFor(chunks, threads, [&](int64_t c) {
    const size_t begin = static_cast<size_t>(c) * kChunk;
    ApplyActivation(activation, values.subspan(begin, std::min(kChunk, values.size() - begin)));
  });
}

void GatedActivationInto(Activation activation, const float* h, int64_t rows, int64_t width, float* y,
                         int threads) {
  for (int64_t r = 0; r < rows; ++r) std::copy_n(h + r * 2 * width, width, y + r * width);
  ApplyActivation(activation, std::span<float>(y, static_cast<size_t>(rows * width)), threads);
  for (int64_t r = 0; r < rows; ++r) {
    const float* gate = h + r * 2 * width + width;
    float* row = y + r * width;
    for (int64_t k = 0; k < width; ++k) row[k] *= gate[k];
  }
}

void SoftmaxInPlace(std::span<float> row) {
  float max = -std::numeric_limits<float>::infinity();
  for (float x : row) max = std::max(max, x);
  if (max == -std::numeric_limits<float>::infinity()) {  // fully masked: no key to attend to
    std::fill(row.begin(), row.end(), 0.0f);
    return;
  }
  double sum = 0.0;
  for (float& x : row) {
    x = std::exp(x - max);  // exp(-inf) = 0 for masked entries
    sum += x;
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (float& x : row) x *= inv;
}

void SoftmaxRows(Matrix* m) {
  for (int64_t r = 0; r < m->rows(); ++r) SoftmaxInPlace({m->row(r), static_cast<size_t>(m->cols())});
}

}  // namespace tokvec
