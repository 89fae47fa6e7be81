// GPT-2's tanh GELU ("gelu_new", torch gelu(approximate="tanh")) on 16 floats at a time with AVX-512, for
// ops.h's ApplyActivation.
//
//   if (!GeluTanhAvx512(values)) { /* no AVX-512: the scalar loop */ }
//
// Why: the scalar loop (double, libm tanh per element) was 23% of the 1-thread `tokvec embed` profile of a
// GPT-2-small-shaped model (bench/embed_model.sh), second only to sgemm.
// How: 0.5·x·(1 + tanh(u)) = x / (1 + exp(-2u)), u = √(2/π)·(x + 0.044715·x³), in float with Exp16
// (exp16_avx512.h). It differs from the double formula by < 1e-6·max(1, |x|) (tests/attention/gelu_avx512_test.cc);
// the result depends on the element only, so any chunking or thread count gives the same bits.
#ifndef TOKVEC_ATTENTION_GELU_AVX512_H_
#define TOKVEC_ATTENTION_GELU_AVX512_H_

#include <span>

namespace tokvec {

// values[i] = gelu_tanh(values[i]) and true, or false (values untouched) when the CPU lacks AVX-512F.
bool GeluTanhAvx512(std::span<float> values);

}  // namespace tokvec

#endif  // TOKVEC_ATTENTION_GELU_AVX512_H_
