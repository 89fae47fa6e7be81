#include "embeddings/random_init.h"

#include <cmath>
#include <numbers>

namespace tokvec {

double NormalSampler::Next() {
  if (spare_) {
    const double z1 = *spare_;
    spare_.reset();
    return z1;
  }
  // 53 random bits each: u1 in (0, 1] (so log(u1) is finite), u2 in [0, 1).
  constexpr double kUnit = 1.0 / 9007199254740992.0;  // 2^-53
  const double u1 = static_cast<double>((engine_() >> 11) + 1) * kUnit;
  const double u2 = static_cast<double>(engine_() >> 11) * kUnit;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  spare_ = r * std::sin(angle);
  return r * std::cos(angle);
}

void NormalSampler::Fill(std::span<float> out, float mean, float stddev) {
  for (float& value : out) value = static_cast<float>(mean + stddev * Next());
}

tokvec::Matrix NormalSampler::Matrix(int64_t rows, int64_t cols, float stddev) {
  tokvec::Matrix m(rows, cols);  // [rows, cols]
  Fill(m.storage(), 0.0f, stddev);
  return m;
}

}  // namespace tokvec
