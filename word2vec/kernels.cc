#include "word2vec/kernels.h"

#include <immintrin.h>

#include <cstdlib>
#include <cstring>

namespace tokvec::word2vec {
namespace {

// Portable: four partial sums break the serial chain; compilers vectorise the update loop themselves.
float DotPortable(const float* a, const float* b, int64_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

void AxpyPortable(float g, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += g * x[i];
}

void UpdatePortable(float g, float* out, const float* in, float* grad, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float o = out[i];
    grad[i] += g * o;
    out[i] = o + g * in[i];
  }
}

// AVX-512: 16 floats a step, the tail under a mask (d = 100 is 6 full steps and one of 4).
__attribute__((target("avx512f"))) float DotAvx512(const float* a, const float* b, int64_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  for (; i + 16 <= n; i += 16) s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx512f"))) void AxpyAvx512(float g, const float* x, float* y, int64_t n) {
  const __m512 vg = _mm512_set1_ps(g);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(vg, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, _mm512_fmadd_ps(vg, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i)));
  }
}

__attribute__((target("avx512f"))) void UpdateAvx512(float g, float* out, const float* in, float* grad, int64_t n) {
  const __m512 vg = _mm512_set1_ps(g);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 o = _mm512_loadu_ps(out + i);
    _mm512_storeu_ps(grad + i, _mm512_fmadd_ps(vg, o, _mm512_loadu_ps(grad + i)));
    _mm512_storeu_ps(out + i, _mm512_fmadd_ps(vg, _mm512_loadu_ps(in + i), o));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 o = _mm512_maskz_loadu_ps(m, out + i);
    _mm512_mask_storeu_ps(grad + i, m, _mm512_fmadd_ps(vg, o, _mm512_maskz_loadu_ps(m, grad + i)));
    _mm512_mask_storeu_ps(out + i, m, _mm512_fmadd_ps(vg, _mm512_maskz_loadu_ps(m, in + i), o));
  }
}

// AVX2 + FMA: 8 floats a step, a scalar tail.
__attribute__((target("avx2,fma"))) float DotAvx2(const float* a, const float* b, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  __m256 s = _mm256_add_ps(s0, s1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  float total = _mm_cvtss_f32(h);
  for (; i < n; ++i) total += a[i] * b[i];
  return total;
}

__attribute__((target("avx2,fma"))) void AxpyAvx2(float g, const float* x, float* y, int64_t n) {
  const __m256 vg = _mm256_set1_ps(g);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(vg, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  }
  for (; i < n; ++i) y[i] += g * x[i];
}

__attribute__((target("avx2,fma"))) void UpdateAvx2(float g, float* out, const float* in, float* grad, int64_t n) {
  const __m256 vg = _mm256_set1_ps(g);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 o = _mm256_loadu_ps(out + i);
    _mm256_storeu_ps(grad + i, _mm256_fmadd_ps(vg, o, _mm256_loadu_ps(grad + i)));
    _mm256_storeu_ps(out + i, _mm256_fmadd_ps(vg, _mm256_loadu_ps(in + i), o));
  }
  for (; i < n; ++i) {
    const float o = out[i];
    grad[i] += g * o;
    out[i] = o + g * in[i];
  }
}

const Kernels kPortable{"portable", DotPortable, AxpyPortable, UpdatePortable};
const Kernels kAvx2{"avx2", DotAvx2, AxpyAvx2, UpdateAvx2};
const Kernels kAvx512{"avx512", DotAvx512, AxpyAvx512, UpdateAvx512};

const Kernels& Choose() {
  const char* forced = std::getenv("TOKVEC_W2V_KERNELS");
  if (forced != nullptr && std::strcmp(forced, "portable") == 0) return kPortable;
  if (__builtin_cpu_supports("avx512f")) return kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kAvx2;
  return kPortable;
}

}  // namespace

const Kernels& PortableKernels() { return kPortable; }

const Kernels& BestKernels() {
  static const Kernels& chosen = Choose();
  return chosen;
}

}  // namespace tokvec::word2vec
