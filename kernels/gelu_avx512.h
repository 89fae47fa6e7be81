// GPT-2's tanh GELU ("gelu_new", torch gelu(approximate="tanh")) on 16 floats at a time with AVX-512, for
// ops.h's ApplyActivation.
//
//   if (!GeluTanhAvx512(values)) { /* no AVX-512: the scalar loop */ }
//
// Why: the scalar loop (double, libm tanh per element) was 23% of the 1-thread `tokvec embed` profile of a
// GPT-2-small-shaped model (bench/embed_model.sh), second only to sgemm.
// How: 0.5·x·(1 + tanh(u)) = x / (1 + exp(-2u)), u = √(2/π)·(x + 0.044715·x³), in float with Exp16
// (exp16_avx512.h). It differs from the double formula by < 1e-6·max(1, |x|) (tests/kernels/gelu_avx512_test.cc);
// the result depends on the element only, so any chunking or thread count gives the same bits.
#ifndef TOKVEC_KERNELS_GELU_AVX512_H_
#define TOKVEC_KERNELS_GELU_AVX512_H_

#include <span>

namespace tokvec {

// values[i] = gelu_tanh(values[i]) and true, or false (values untouched) when the CPU lacks AVX-512F.
bool GeluTanhAvx512(std::span<float> values);

// The exact GELU (BERT's "gelu", torch gelu()), 0.5·x·(1 + erf(x/√2)) = 0.5·x·erfc(-x/√2), the same way: erfc of
// |z| = |x|/√2 by the Chebyshev-fitted formula t·exp(-z² + P(t)), t = 1/(1 + z/2), P of degree 9 (relative error
// < 1.2e-7; Press et al., Numerical Recipes, 6.2 "erfcc"), and erfc(-z) = 2 - erfc(z) for x > 0. Within
// 1e-6·max(1, |x|) of the double formula (tests/kernels/gelu_avx512_test.cc); the libm erf loop was 7% of a
// BERT-base `tokvec embed` profile. True, or false (values untouched) without AVX-512F.
bool GeluErfAvx512(std::span<float> values);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_GELU_AVX512_H_
