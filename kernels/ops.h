// The element-wise and matrix building blocks of a transformer: linear layers (through OpenBLAS cblas_sgemm, or
// tokvec's AVX-512 GEMM in TiledLinearInto when LinearWeights::packed is set, see packed_gemm.h),
// LayerNorm, activations (GELU exact, GELU tanh, ReLU) and a numerically stable row softmax.
//
//   LinearWeights proj{.weight = w, .bias = b, .layout = WeightLayout::kInOut};   // GPT-2 Conv1D [in, out]
//   TOKVEC_ASSIGN_OR_RETURN(Matrix y, Linear(x.view(), proj));                    // [T, out]
//   TOKVEC_ASSIGN_OR_RETURN(Matrix n, LayerNorm(y.view(), ln));                   // [T, out]
//   ApplyActivation(Activation::kGeluTanh, n.storage());
//
// Weights are non-owning views (they may point into a memory-mapped safetensors file). OpenBLAS is kept
// single-threaded (openblas_set_num_threads(1), once); parallelism is ours, over fixed-size blocks of rows, so a
// result never depends on the thread count.
#ifndef TOKVEC_KERNELS_OPS_H_
#define TOKVEC_KERNELS_OPS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace tokvec {

struct LowPrecisionWeights;  // kernels/low_precision_linear.h

// How a linear layer's weight matrix is laid out.
enum class WeightLayout {
  kOutIn,  // nn.Linear: weight [out, in], y = x·Wᵀ + b (PyTorch, BERT, nn.MultiheadAttention's in_proj).
  kInOut,  // GPT-2 Conv1D: weight [in, out], y = x·W + b.
};

class PackedWeights;  // packed_gemm.h

// A linear layer's parameters, non-owning.
struct LinearWeights {
  MatrixView weight;             // [out, in] (kOutIn) or [in, out] (kInOut)
  std::span<const float> bias;   // [out], or empty for no bias
  WeightLayout layout = WeightLayout::kOutIn;
  // Floats between consecutive rows of `weight`; 0 means weight.cols. Lets a view select some output columns of
  // a wider kInOut matrix (e.g. the query third of GPT-2's fused c_attn) without copying.
  int64_t row_stride = 0;
  // When set, TiledLinearInto runs this bf16 / int8 packing of `weight` instead (low_precision_linear.h); owned by
  // the model, immutable. `weight` stays the f32 original (SliceOutputs views drop `low` and use it).
  const LowPrecisionWeights* low = nullptr;
  // Optional copy of `weight` packed for tokvec's AVX-512 GEMM (packed_gemm.h), owned by the model; when set (and
  // the CPU has AVX-512), TiledLinearInto uses it instead of cblas_sgemm. SliceOutputs drops it.
  const PackedWeights* packed = nullptr;

  int64_t in_features() const { return layout == WeightLayout::kOutIn ? weight.cols : weight.rows; }
  int64_t out_features() const { return layout == WeightLayout::kOutIn ? weight.rows : weight.cols; }
  int64_t ld() const { return row_stride > 0 ? row_stride : weight.cols; }
  bool empty() const { return weight.data == nullptr; }
};

// Output features [begin, begin + count) of `w` as a new view (no copy): rows of a kOutIn weight, columns of a
// kInOut weight (via row_stride), with the matching bias slice, without `packed`. No checks; see ValidateLinear.
LinearWeights SliceOutputs(const LinearWeights& w, int64_t begin, int64_t count);

// InvalidArgument naming `name` unless w has in_features == `in` and (out > 0) out_features == `out`, and the
// bias is empty or [out].
absl::Status ValidateLinear(const LinearWeights& w, int64_t in, int64_t out, std::string_view name);

// y = x·Wᵀ + b or x·W + b. x: [T, in] -> [T, out]. Shape mismatch is InvalidArgument.
absl::StatusOr<Matrix> Linear(MatrixView x, const LinearWeights& w, int threads = 1);

// Unchecked kernel: y ([T, out], ld = out) = x·W(ᵀ) + b, rows processed in fixed blocks spread over `threads`.
void LinearInto(MatrixView x, const LinearWeights& w, float* y, int threads);

// LayerNorm (Ba et al. 2016, https://arxiv.org/abs/1607.06450), as torch.nn.LayerNorm over the last dimension:
// y = (x - mean) / sqrt(var + eps) * gamma + beta, with the biased variance. Statistics are in double.
// LayerNormInto is the reference LayerNorm of tokvec (a plain loop per row); the two other forwards are tested
// against it: LayerNormRowsInto (layer_norm_rows.h, AVX-512; tests/kernels/layer_norm_rows_test.cc) and
// training's LayerNormForward (training/kernels.h, which also keeps mean and rstd for the backward pass;
// tests/training/layer_norm_reference_test.cc).
struct LayerNormWeights {
  std::span<const float> gamma;  // [D]
  std::span<const float> beta;   // [D]
  float eps = 1e-5f;             // GPT-2: layer_norm_epsilon = 1e-5
};
absl::Status ValidateLayerNorm(const LayerNormWeights& w, int64_t d_model, std::string_view name);
absl::StatusOr<Matrix> LayerNorm(MatrixView x, const LayerNormWeights& w);  // [T, D] -> [T, D]
void LayerNormInto(MatrixView x, const LayerNormWeights& w, float* y);     // unchecked, y: [T, D]

// Feed-forward activations.
enum class Activation {
  kRelu,       // max(0, x)
  kGeluExact,  // x · Φ(x) = 0.5·x·(1 + erf(x/√2))  (Hendrycks & Gimpel 2016); torch "gelu"
  kGeluTanh,   // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)));  GPT-2's "gelu_new", torch gelu(approximate="tanh")
};
// "relu", "gelu" (exact), "gelu_new" / "gelu_tanh" / "gelu_pytorch_tanh" (tanh); anything else is
// InvalidArgument listing these.
absl::StatusOr<Activation> ParseActivation(std::string_view name);
std::string_view ActivationName(Activation activation);  // "relu", "gelu", "gelu_new"
void ApplyActivation(Activation activation, std::span<float> values);
// The same over fixed chunks spread on `threads` (element-wise, so any thread count gives the same bits).
void ApplyActivation(Activation activation, std::span<float> values, int threads);
// GeGLU / SwiGLU-style gating: y[r, j] = act(h[r, j]) · h[r, width + j].   h: [rows, 2·width], y: [rows, width]
void GatedActivationInto(Activation activation, const float* h, int64_t rows, int64_t width, float* y,
                         int threads = 1);

// Stable softmax of one row in place: exp(x - max) / sum. -infinity entries get weight 0; a row that is entirely
// -infinity (fully masked) becomes all zeros, never NaN.
void SoftmaxInPlace(std::span<float> row);
// Every row of m.
void SoftmaxRows(Matrix* m);

// Sets OpenBLAS to one thread and stops its idle worker threads, once per process (thread-safe), after
// SelectBlasKernels (blas_kernels.h) has put right a fallback to SSE3 kernels on CPUs newer than the OpenBLAS.
// Every op here calls it, and `tokvec` calls it at start (idle workers would otherwise spin on a core for ~0.1 s).
void UseSingleThreadedBlas();

// Runs fn(i) for i in [0, n) on up to `threads` std::threads (the calling thread included). Each index is
// processed exactly once; which thread runs it does not matter for the result.
void ParallelFor(int64_t n, int threads, const std::function<void(int64_t)>& fn);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_OPS_H_
