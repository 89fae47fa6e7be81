#include "cli/bench_timing.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "embeddings/random_init.h"
#include "kernels/ops.h"

namespace tokvec::cli {

// Peak resident set of this process image in MB: VmHWM from /proc/self/status. Not getrusage's ru_maxrss,
// which Linux carries across execve: launched from a Python process holding torch it reported 401 MB for a run
// whose own peak was 35 MB.
double PeakRssMb() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 0.0;
  char line[256];
  double kib = 0.0;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::sscanf(line, "VmHWM: %lf kB", &kib) == 1) break;
  }
  std::fclose(status);
  return kib / 1024.0;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double TimeMs(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Median wall time in milliseconds of `repeats` runs of fn, after one excluded warm-up run.
double MedianMs(int repeats, const std::function<void()>& fn) {
  fn();
  std::vector<double> ms;
  for (int i = 0; i < std::max(repeats, 1); ++i) ms.push_back(TimeMs(fn));
  return Median(ms);
}

SgemmYardstick::SgemmYardstick(int64_t n) : n_(n) {
  UseSingleThreadedBlas();
  NormalSampler sampler(7);
  a_ = sampler.Matrix(n, n, 1.0f);
  b_ = sampler.Matrix(n, n, 1.0f);
  c_ = Matrix(n, n);
}

void SgemmYardstick::Run(double budget_ms) {
  const blasint m = static_cast<blasint>(n_);
  double spent = 0.0;
  do {
    const double ms = TimeMs([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a_.data(), m, b_.data(), m, 0.0f,
                  c_.data(), m);
    });
    gflops_.push_back(2.0 * static_cast<double>(n_ * n_) * static_cast<double>(n_) / (ms * 1e6));
    spent += ms;
  } while (spent < budget_ms);
}

}  // namespace tokvec::cli
