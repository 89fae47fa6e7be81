#include "attention/gelu_avx512.h"

#include <cstddef>
#include <cstdint>

#include "attention/exp16_avx512.h"
#include "attention/flash_kernels.h"

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

__attribute__((target("avx512f"))) void GeluTanhAvx512Loop(float* x, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, GeluTanh16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(x + i, tail, GeluTanh16(_mm512_maskz_loadu_ps(tail, x + i)));
  }
}
#endif

}  // namespace

bool GeluTanhAvx512(std::span<float> values) {
#if defined(__x86_64__)
  if (Avx512Available()) {
    GeluTanhAvx512Loop(values.data(), values.size());
    return true;
  }
#endif
  return false;
}

}  // namespace tokvec
