// Seeded, platform-independent random initialisation: normal(mean, std) from std::mt19937_64 (whose output
// the C++ standard fixes) and our own Box–Muller transform (std::normal_distribution is implementation-defined,
// so it would give different models on different standard libraries).
//
//   NormalSampler sampler(/*seed=*/42);
//   Matrix wte = sampler.Matrix(vocab_size, d_model, /*stddev=*/0.02f);   // [V, D], GPT-2's init scheme
//
// Box–Muller (Box & Muller 1958): u1 in (0, 1], u2 in [0, 1) ->
//   z0 = sqrt(-2 ln u1) cos(2 pi u2), z1 = sqrt(-2 ln u1) sin(2 pi u2), both used in that order.
#ifndef TOKVEC_EMBEDDINGS_RANDOM_INIT_H_
#define TOKVEC_EMBEDDINGS_RANDOM_INIT_H_

#include <cstdint>
#include <optional>
#include <random>
#include <span>

#include "kernels/tensor.h"

namespace tokvec {

class NormalSampler {
 public:
  explicit NormalSampler(uint64_t seed) : engine_(seed) {}

  // One standard normal sample (mean 0, std 1), computed in double.
  double Next();
  // Fills `out` with normal(mean, stddev) samples in order.
  void Fill(std::span<float> out, float mean, float stddev);
  // A [rows, cols] matrix of normal(0, stddev) samples, row by row.
  tokvec::Matrix Matrix(int64_t rows, int64_t cols, float stddev);

 private:
  std::mt19937_64 engine_;
  std::optional<double> spare_;  // z1 of the last Box–Muller pair, returned by the next call.
};

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_RANDOM_INIT_H_
