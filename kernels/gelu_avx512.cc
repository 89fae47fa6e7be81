#include "kernels/gelu_avx512.h"

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_features.h"
#include "kernels/exp16_avx512.h"

namespace tokvec {
namespace {

#if defined(__x86_64__)
__attribute__((target("avx512f"))) inline __m512 GeluTanh16(__m512 x) {
  const __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
  // -2u = -2·√(2/π)·(x + 0.044715·x³)
  const __m512 minus_2u = _mm512_mul_ps(_mm512_set1_ps(-1.5957691216057308f),
                                        _mm512_fmadd_ps(_mm512_set1_ps(0.044715f), x3, x));
  return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), Exp16(minus_2u)));
}

__attribute__((target("avx512f"))) inline __m512 GeluErf16(__m512 x) {
  const __m512 z = _mm512_abs_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f)));  // |x|/√2
  const __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_set1_ps(0.5f), z, _mm512_set1_ps(1.0f)));
  __m512 p = _mm512_set1_ps(0.17087277f);
  for (const float c : {-0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f, -0.18628806f, 0.09678418f, 0.37409196f,
                        1.00002368f, -1.26551223f}) {
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(c));
  }
  const __m512 erfc = _mm512_mul_ps(t, Exp16(_mm512_fnmadd_ps(z, z, p)));  // erfc(|z|)
  // x > 0: erfc(-z) = 2 - erfc(z); x <= 0: erfc(|z|).
  const __mmask16 positive = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  const __m512 e = _mm512_mask_sub_ps(erfc, positive, _mm512_set1_ps(2.0f), erfc);
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), e);
}

// values[i] = F(values[i]), 16 at a time; a masked last vector leaves what follows untouched.
template <__m512 (*F)(__m512)>
__attribute__((target("avx512f"))) void Avx512Loop(float* x, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, F(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(x + i, tail, F(_mm512_maskz_loadu_ps(tail, x + i)));
  }
}
#endif

}  // namespace

bool GeluTanhAvx512(std::span<float> values) {
#if defined(__x86_64__)
  if (Avx512Available()) {
    Avx512Loop<GeluTanh16>(values.data(), values.size());
    return true;
  }
#endif
  return false;
}

bool GeluErfAvx512(std::span<float> values) {
#if defined(__x86_64__)
  if (Avx512Available()) {
    Avx512Loop<GeluErf16>(values.data(), values.size());
    return true;
  }
#endif
  return false;
}

}  // namespace tokvec
