// exp(x) of 16 floats with AVX-512F, shared by the kernels that need it (flash attention's online softmax,
// gelu_avx512.cc's tanh GELU). Call only when Avx512Available() (kernels/cpu_features.h).
//
//   __m512 e = Exp16(_mm512_loadu_ps(x));   // e[i] = exp(x[i]); x < -103 gives 0, x > 88.7 gives exp(88.7)
//
// x = n·ln2 + r with |r| <= ln2/2, exp(r) by its degree-7 Taylor polynomial (relative error < 1e-8 before
// rounding), times 2^n by vscalefps, which also flushes x < -103 to zero without NaN. Constants: Cody & Waite
// split of ln2 (as in Cephes expf).
#ifndef TOKVEC_KERNELS_EXP16_AVX512_H_
#define TOKVEC_KERNELS_EXP16_AVX512_H_

#if defined(__x86_64__)
#include <immintrin.h>

namespace tokvec {

__attribute__((target("avx512f"))) inline __m512 Exp16(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-103.0f));
  x = _mm512_min_ps(x, _mm512_set1_ps(88.7f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

}  // namespace tokvec

#endif  // __x86_64__
#endif  // TOKVEC_KERNELS_EXP16_AVX512_H_
