// How `tokvec bench attention` and `bench layer` measure: wall time (steady_clock; the median of timed runs after
// an excluded warm-up), the process's peak resident set, and the one-thread cblas_sgemm yardstick the attention
// bench compares against (cli/bench_command.cc's file comment says what each figure means).
#ifndef TOKVEC_CLI_BENCH_TIMING_H_
#define TOKVEC_CLI_BENCH_TIMING_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/tensor.h"

namespace tokvec::cli {

// Peak resident set of this process image in MB (VmHWM from /proc/self/status); 0 when it cannot be read.
double PeakRssMb();

// The median of `values` (the upper one of an even count).
double Median(std::vector<double> values);

// Wall time of one run of fn, in milliseconds.
double TimeMs(const std::function<void()>& fn);

// Median wall time in milliseconds of `repeats` runs of fn, after one excluded warm-up run.
double MedianMs(int repeats, const std::function<void()>& fn);

// One-thread cblas_sgemm of n x n x n on seeded random matrices, the yardstick for the attention kernel.
class SgemmYardstick {
 public:
  explicit SgemmYardstick(int64_t n);
  // Runs sgemm for about `budget_ms` (at least once) and records each call's GFLOP/s.
  void Run(double budget_ms);
  double MedianGflops() const { return Median(gflops_); }

 private:
  int64_t n_;
  Matrix a_, b_, c_;  // [n, n] each
  std::vector<double> gflops_;
};

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_BENCH_TIMING_H_
