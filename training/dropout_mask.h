// The dropout mask's random numbers (training/kernels.h DropoutUniform) as inline functions, for kernels that draw
// one per element in an inner loop from another file than training/kernels.cc: the attention kernels draw one per
// weight, and a call per draw added 13% to the instructions of a small `fit` with dropout (1 layer, T = 256,
// callgrind). Private to training/'s kernels; other callers use DropoutUniform.
#ifndef TOKVEC_TRAINING_DROPOUT_MASK_H_
#define TOKVEC_TRAINING_DROPOUT_MASK_H_

#include <cstdint>

namespace tokvec::training {

// splitmix64's finalizer (Steele et al. 2014): a bijective 64-bit mix.
inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// DropoutUniform(seed, index), in [0, 1).
inline float InlineDropoutUniform(uint64_t seed, uint64_t index) {
  // A counter-based generator: element `index` is computable on its own, by any thread.
  const uint64_t z = Mix64(seed + (index + 1) * 0x9E3779B97F4A7C15ULL);
  return static_cast<float>(z >> 40) * 0x1.0p-24f;  // 24 random bits
}

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_DROPOUT_MASK_H_
