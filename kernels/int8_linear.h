// A linear layer in int8: weights quantized once, at load, symmetrically per output (w ≈ s_j·q, q in [-127, 127],
// s_j = max_i |W[i, j]| / 127) into panels (packed_panels.h); each row of activations quantized at run time
// symmetrically (x ≈ t_r·p, p in [-127, 127], t_r = max_i |x[r, i]| / 127) and stored as u8 = p + 128, because
// AVX-512 VNNI's _mm512_dpbusd_epi32 multiplies u8 by s8 (four products summed into an int32 lane). The +128 is
// taken back out with the weights' column sums: Σ_i (p_i + 128)·q_ij = Σ_i p_i·q_ij + 128·Σ_i q_ij, so
// y_rj += t_r·s_j·(acc_rj - 128·colsum_j). A quarter of the weight memory; four multiply-adds per 32-bit lane.
//
//   Int8PackedWeights packed = PackInt8(layer);
//   Int8TileInto(x, in, rows, packed, 0, out, y, out);                // y += x·W (y holds the bias before)
//
// Accuracy: |x - t·p| <= t/2 and |w - s·q| <= s/2 per element, so |y - y_f32| <= Σ_i (|x_i|·s/2 + |w_i|·t/2 +
// s·t/4) (tests/kernels/low_precision_linear_test.cc checks it). int32 cannot overflow: |acc| <= 255·127·in +
// 128·127·in < 2^31 for in < 34,000. Needs AVX-512 VNNI (CheckCpuSupports in low_precision_linear.h).
#ifndef TOKVEC_KERNELS_INT8_LINEAR_H_
#define TOKVEC_KERNELS_INT8_LINEAR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/amx.h"
#include "kernels/ops.h"

namespace tokvec {

// The most inputs a layer may have: the int32 accumulators stay below 2^31 (see above).
inline constexpr int64_t kInt8MaxInFeatures = 33'000;

struct Int8PackedWeights {
  int64_t in = 0, out = 0;
  int64_t quads = 0;               // ceil(in / 4)
  std::vector<int8_t> data;        // panel p, quad k, output j, byte b: data[((p·quads + k)·16 + j)·4 + b]
  std::vector<float> scales;       // [panels·16] s_j (0 past out)
  std::vector<int32_t> offsets;    // [panels·16] -128·Σ_i q_ij, the accumulators' start
  size_t bytes() const { return data.size() + scales.size() * sizeof(float) + offsets.size() * sizeof(int32_t); }
};

Int8PackedWeights PackInt8(const LinearWeights& w);

// Which instructions multiply: AVX-512 VNNI (vpdpbusd, 4 rows x 64 outputs of int32 lanes), or AMX (tdpbusd,
// 32 rows x 32 outputs of 16 x 16 int32 tiles) where the CPU has AMX-INT8 and Linux grants its tile state. Both
// sum the same integers exactly, so their outputs are the same bits; kAuto takes AMX when AmxInt8Available()
// (amx.h).
enum class Int8Kernel { kAuto, kVnni, kAmx };

// Unchecked: y[r, c] += x[r, :]·W[:, col0 + c] in int8 for r < rows, c < cols; col0 % 16 == 0. kAmx only where
// AmxInt8Available().
void Int8TileInto(const float* x, int64_t ldx, int64_t rows, const Int8PackedWeights& w, int64_t col0, int64_t cols,
                  float* y, int64_t ldy, Int8Kernel kernel = Int8Kernel::kAuto);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_INT8_LINEAR_H_
