// A linear layer in bf16 (Kalamkar et al. 2019, https://arxiv.org/abs/1905.12322: f32's exponent, an 8-bit
// mantissa): weights rounded to bf16 once, at load, into panels (packed_panels.h); each tile's activations rounded
// to bf16 on the fly; products summed in f32 by AVX-512 BF16's _mm512_dpbf16_ps (two bf16 products per f32 lane).
// Half the weight memory and, per instruction, twice the multiply-adds of an f32 FMA.
//
//   Bf16PackedWeights packed = PackBf16(layer);                        // [panels][in/2][16][2] bf16
//   Bf16TileInto(x, in, rows, packed, 0, out, y, out);                // y += x·W (y holds the bias before)
//
// Accuracy: rounding x and w each to 8 bits of mantissa (relative error <= 2^-9 each) gives every product a
// relative error <= ~2^-8, so |y - y_f32| <= ~2^-8 · Σ_i |x_i·w_i| (tests/kernels/low_precision_linear_test.cc).
// Needs AVX-512 BF16 (CheckCpuSupports in low_precision_linear.h); the kernels are compiled for it with
// __attribute__((target)), so the rest of the binary runs anywhere.
#ifndef TOKVEC_KERNELS_BF16_LINEAR_H_
#define TOKVEC_KERNELS_BF16_LINEAR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/amx.h"
#include "kernels/ops.h"

namespace tokvec {

struct Bf16PackedWeights {
  int64_t in = 0, out = 0;
  int64_t pairs = 0;           // ceil(in / 2)
  std::vector<uint16_t> data;  // panel p, pair k, output j, half h: data[((p·pairs + k)·16 + j)·2 + h]
  size_t bytes() const { return data.size() * sizeof(uint16_t); }
};

// f32 -> bf16, round to nearest even (NaN stays NaN).
uint16_t RoundToBf16(float value);
float Bf16ToFloat(uint16_t bits);

Bf16PackedWeights PackBf16(const LinearWeights& w);

// Which instructions multiply: AVX-512 BF16 (vdpbf16ps, 6 rows x 64 outputs of f32 lanes), or AMX-BF16
// (tdpbf16ps, 32 rows x 32 outputs of 16 x 16 f32 tiles) where AmxBf16Available() (amx.h), which kAuto takes.
// Both sum the same bf16 products in f32, in other orders: the last bits may differ between them, never between
// runs, thread counts or batches on one machine.
enum class Bf16Kernel { kAuto, kAvx512, kAmx };

// Unchecked: y[r, c] += Σ_i bf16(x[r, i])·W[i, col0 + c] (f32 sums) for r < rows, c < cols; col0 % 16 == 0. kAmx
// only where AmxBf16Available().
void Bf16TileInto(const float* x, int64_t ldx, int64_t rows, const Bf16PackedWeights& w, int64_t col0, int64_t cols,
                  float* y, int64_t ldy, Bf16Kernel kernel = Bf16Kernel::kAuto);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_BF16_LINEAR_H_
