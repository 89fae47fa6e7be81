// The vector loops of Word2Vec training, chosen once for the CPU: AVX-512, AVX2+FMA, or portable C++.
//
//   const Kernels& k = BestKernels();
//   float f = k.dot(input, output_row, dim);        // input . output_row
//   k.update(g, output_row, input, grad, dim);       // grad += g * output_row; output_row += g * input
//
// Why explicit kernels: word2vec.c's dot product `f += a[c] * b[c]` is one serial chain of dependent float adds
// (compilers keep that order without -ffast-math), ~4 cycles per element; with 16-wide vectors and two
// accumulators it is a handful of instructions. The update fuses word2vec.c's two loops (neu1e += g * syn1,
// syn1 += g * l1) into one pass over the three rows. The build has no -march flag, so the wide versions are
// compiled with __attribute__((target)) and picked at run time with __builtin_cpu_supports.
#ifndef TOKVEC_WORD2VEC_KERNELS_H_
#define TOKVEC_WORD2VEC_KERNELS_H_

#include <cstdint>

namespace tokvec::word2vec {

struct Kernels {
  const char* name;  // "avx512", "avx2" or "portable"
  float (*dot)(const float* a, const float* b, int64_t n);
  // y += g * x
  void (*axpy)(float g, const float* x, float* y, int64_t n);
  // grad += g * out; out += g * in (grad is read before out changes, as word2vec.c's two loops do).
  void (*update)(float g, float* out, const float* in, float* grad, int64_t n);
};

const Kernels& PortableKernels();
// The fastest kernels this CPU runs (TOKVEC_W2V_KERNELS=portable forces the portable ones, for tests).
const Kernels& BestKernels();

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_KERNELS_H_
