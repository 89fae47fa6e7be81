// e^x and row reductions for the training kernels' element-wise loops (softmax of the LM head and of attention,
// GELU), written as plain arithmetic on one float so the compiler vectorizes the loops that call it; glibc's exp
// is a call per element (perf: exp and expm1 took 12% of a `tokvec fit` step of a 6-layer d384 GPT-2 before).
//
// Range reduction x = n·ln2 + r with |r| <= ln2/2 (ln2 split in two parts as Cephes' expf does), then Cephes'
// degree-6 minimax polynomial for e^r (Moshier, Cephes Math Library, expf.c; relative error about 1 ulp), scaled
// by 2^n through the exponent bits. Inputs below -87.33 give 0 (e^-87.33 is the smallest normal float); inputs
// above 88 give e^88 (callers take ratios of such values, never the value itself); NaN stays NaN.
// Deterministic: the same bits for any thread count and any vector width (no contraction into FMA in ISO C++
// mode, and every operation is a correctly rounded IEEE operation).
#ifndef TOKVEC_TRAINING_VECTOR_MATH_H_
#define TOKVEC_TRAINING_VECTOR_MATH_H_

#include <bit>
#include <cstdint>

// A function compiled for AVX-512 (16 lanes) whose results must be the baseline build's bits: the target, and FMA
// contraction off (GCC fuses a * b + c by default in C++, -ffp-contract=fast, and clang within an expression; the
// baseline has no FMA). Put TOKVEC_AVX512_SAME_BITS before the function; the loops it calls must be inlined into
// it ([[gnu::always_inline]]) to be compiled for AVX-512 at all. GCC decides contraction in the function they are
// inlined into (the attribute's option); clang in each body, so every body with a multiply-add starts with
// TOKVEC_NO_CONTRACTION.
#if defined(__clang__)
#define TOKVEC_AVX512_SAME_BITS __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#define TOKVEC_NO_CONTRACTION _Pragma("clang fp contract(off)")
#else
#define TOKVEC_AVX512_SAME_BITS \
  __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"), optimize("fp-contract=off")))
#define TOKVEC_NO_CONTRACTION
#endif

namespace tokvec::training {

[[gnu::always_inline]] inline float VectorExp(float x) {
  TOKVEC_NO_CONTRACTION
  const float c = x < -87.33f ? -87.33f : (x > 88.0f ? 88.0f : x);  // NaN -> 88 here, restored below
  const float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(c / ln2), |n| <= 127
  const float r = (c - n * 0.693359375f) + n * 2.12194440e-4f;            // c - n·ln2 in two parts
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const float scaled = p * std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);  // p · 2^n
  if (x != x) return x;
  return x < -87.33f ? 0.0f : scaled;
}

// row[j] = e^(row[j] - shift) for j in [0, n).
[[gnu::always_inline]] inline void ExpShiftedInPlace(float* row, int64_t n, float shift) {
  TOKVEC_NO_CONTRACTION
  for (int64_t j = 0; j < n; ++j) row[j] = VectorExp(row[j] - shift);
}

// max(row[0, n)) (-infinity when n = 0), over 16 lanes so it vectorizes; a max is exact in any order.
[[gnu::always_inline]] inline float MaxOf(const float* row, int64_t n) {
  constexpr int64_t kLanes = 16;
  float lanes[kLanes];
  for (float& lane : lanes) lane = -__builtin_inff();
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) lanes[k] = row[j + k] > lanes[k] ? row[j + k] : lanes[k];
  }
  float max = -__builtin_inff();
  for (float lane : lanes) max = lane > max ? lane : max;
  for (; j < n; ++j) max = row[j] > max ? row[j] : max;
  return max;
}

// Σ row[0, n) in double: 8 lane sums (element j into lane j mod 8, in order), then the lanes in order; the same
// bits on every run, and it vectorizes (a single running sum would not, without reassociation).
[[gnu::always_inline]] inline double SumAsDouble(const float* row, int64_t n) {
  constexpr int64_t kLanes = 8;
  double lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) lanes[k] += static_cast<double>(row[j + k]);
  }
  for (int64_t k = 0; j < n; ++j, ++k) lanes[k] += static_cast<double>(row[j]);
  double sum = 0.0;
  for (double lane : lanes) sum += lane;
  return sum;
}

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_VECTOR_MATH_H_
