// Reduced-precision linear layers (opt-in, `tokvec embed --dtype bf16|int8`): a layer's weight matrix packed once,
// at model load, into bf16 (kernels/bf16_linear.h) or int8 with a scale per output (kernels/int8_linear.h),
// and run by AVX-512 BF16 / VNNI kernels from TiledLinearInto (kernels/tiled_linear.h), which keeps its epilogue
// (bias, residual, activation, LayerNorm) in f32. Only the big linear layers change; embeddings, LayerNorm,
// softmax and attention scores stay f32.
//
//   TOKVEC_ASSIGN_OR_RETURN(LinearDtype dtype, ParseLinearDtype("bf16"));
//   TOKVEC_RETURN_IF_ERROR(CheckCpuSupports(dtype));           // FailedPrecondition without AVX-512 BF16
//   TOKVEC_ASSIGN_OR_RETURN(auto packed, PackLowPrecision(layer, dtype));
//   layer.low = packed.get();                                  // the owner keeps `packed` alive and immutable
//   TiledLinearInto(x, layer, y.data(), /*threads=*/2);        // now the bf16 kernel, same epilogue
//
// Chosen at run time: CheckCpuSupports asks the CPU (__builtin_cpu_supports); a CPU without the instructions is a
// clear error, never a silent f32 fallback. For tests of that error, TOKVEC_DISABLE_CPU_FEATURES (a comma-separated
// list, e.g. "avx512bf16,avx512vnni") makes the check answer "unsupported" for the features it names.
#ifndef TOKVEC_KERNELS_LOW_PRECISION_LINEAR_H_
#define TOKVEC_KERNELS_LOW_PRECISION_LINEAR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/bf16_linear.h"
#include "kernels/int8_linear.h"
#include "kernels/ops.h"

namespace tokvec {

enum class LinearDtype {
  kF32,   // the default: the f32 weights (tokvec's packed AVX-512 GEMM, packed_gemm.h, or OpenBLAS sgemm)
  kBf16,  // bf16 weights and activations (8-bit mantissa), f32 accumulation: _mm512_dpbf16_ps
  kInt8,  // int8 weights (scale per output), u8 activations (scale per row), int32 accumulation: _mm512_dpbusd_epi32
};

// "f32", "bf16", "int8"; anything else is InvalidArgument listing them.
absl::StatusOr<LinearDtype> ParseLinearDtype(std::string_view name);
std::string_view LinearDtypeName(LinearDtype dtype);

// OK when this CPU runs `dtype`'s kernels (f32 always); FailedPrecondition naming the missing instruction set.
absl::Status CheckCpuSupports(LinearDtype dtype);

// A layer's weights in one reduced precision. Immutable after packing, so any number of threads may share it.
struct LowPrecisionWeights {
  LinearDtype dtype = LinearDtype::kBf16;
  Bf16PackedWeights bf16;  // when dtype == kBf16
  Int8PackedWeights int8;  // when dtype == kInt8
  size_t bytes() const { return dtype == LinearDtype::kBf16 ? bf16.bytes() : int8.bytes(); }
  int64_t in_features() const { return dtype == LinearDtype::kBf16 ? bf16.in : int8.in; }
  int64_t out_features() const { return dtype == LinearDtype::kBf16 ? bf16.out : int8.out; }
};

// Packs w (any layout and row stride) for `dtype` (kBf16 or kInt8; kF32 is InvalidArgument). Checks the CPU.
absl::StatusOr<std::unique_ptr<LowPrecisionWeights>> PackLowPrecision(const LinearWeights& w, LinearDtype dtype);

// Packs every layer of `layers` for `dtype` and points its `low` at the packing, which the caller keeps (kF32:
// clears `low`, returns nothing). On an error no layer changes.
absl::StatusOr<std::vector<std::unique_ptr<LowPrecisionWeights>>> PackLayers(const std::vector<LinearWeights*>& layers,
                                                                             LinearDtype dtype);

// Unchecked: y[r, c] += Σ_i x[r, i]·W[i, col0 + c] for r < rows, c < cols, in w's precision. x: [rows, in] with
// row stride ldx; y: row stride ldy. col0 is a multiple of 16 (TiledLinearInto's column tiles are).
void LowPrecisionTileInto(const float* x, int64_t ldx, int64_t rows, const LowPrecisionWeights& w, int64_t col0,
                          int64_t cols, float* y, int64_t ldy);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_LOW_PRECISION_LINEAR_H_
