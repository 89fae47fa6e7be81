#include "cli/bench_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "embeddings/random_init.h"
#include "fmt/format.h"
#include "kernels/blas_kernels.h"
#include "kernels/ops.h"
#include "kernels/packed_gemm.h"
#include "nlohmann/json.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tokvec::cli {
namespace {

struct GemmBenchOptions {
  std::vector<int64_t> rows = {512, 1024};
  std::vector<std::string> shapes = {"768x2304", "768x768", "768x3072", "3072x768"};
  int repeats = 5;
};

// Seconds of one run of fn.
template <typename Fn>
double Seconds(const Fn& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#if defined(__x86_64__)
// GFLOP/s of `iterations` x 24 independent AVX-512 FMA chains held in registers (no memory traffic).
__attribute__((target("avx512f"), noinline)) double FmaPeakGflops(int64_t iterations) {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-4f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  __m512 sum = acc[0];
  for (int i = 1; i < 24; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return static_cast<double>(iterations) * 24 * 16 * 2 / s / 1e9;
}
#endif

// The largest rows, in or out bench gemm takes (16384² floats: 1 GiB per matrix at most).
constexpr int64_t kMaxGemmSide = 16384;

absl::Status RunGemmBench(const GemmBenchOptions& o) {
  std::vector<std::pair<int64_t, int64_t>> shapes;  // (in, out)
  for (const std::string& shape : o.shapes) {
    int64_t in = 0, out = 0;
    // A whole decimal number filling [begin, end), or false (std::from_chars: no sign, no overflow).
    auto whole_number = [](const char* begin, const char* end, int64_t* value) {
      const std::from_chars_result r = std::from_chars(begin, end, *value);
      return r.ec == std::errc() && r.ptr == end && begin != end;
    };
    const size_t x = shape.find('x');
    const bool parsed = x != std::string::npos && whole_number(shape.data(), shape.data() + x, &in) &&
                        whole_number(shape.data() + x + 1, shape.data() + shape.size(), &out);
    if (!parsed || in <= 0 || out <= 0 || in > kMaxGemmSide || out > kMaxGemmSide) {
      return absl::InvalidArgumentError(std::string(kUsagePrefix) +
                                        fmt::format("bad --shapes entry '{}'; expected INxOUT, each 1..{}", shape,
                                                    kMaxGemmSide));
    }
    shapes.emplace_back(in, out);
  }
  for (int64_t rows : o.rows) {
    if (rows <= 0 || rows > kMaxGemmSide) {
      return absl::InvalidArgumentError(std::string(kUsagePrefix) +
                                        fmt::format("every --rows value must be in 1..{}", kMaxGemmSide));
    }
  }
  if (!PackedGemmAvailable()) {
    return absl::FailedPreconditionError("bench gemm: the packed GEMM needs AVX-512F (and TOKVEC_GEMM unset)");
  }
  UseSingleThreadedBlas();
  double peak = 0.0;
#if defined(__x86_64__)
  FmaPeakGflops(20'000'000);
  std::vector<double> peaks;
  for (int i = 0; i < 3; ++i) peaks.push_back(FmaPeakGflops(50'000'000));
  peak = MedianOf(peaks);
#endif
  for (const std::pair<int64_t, int64_t>& shape : shapes) {
    const int64_t in = shape.first, out = shape.second;  // not a structured binding: lambdas below capture them
    for (int64_t rows : o.rows) {
      NormalSampler sampler(1);
      const Matrix x = sampler.Matrix(rows, in, 1.0f), weight = sampler.Matrix(in, out, 0.05f);
      Matrix y(rows, out);
      const LinearWeights w{.weight = weight.view(), .layout = WeightLayout::kInOut};
      const std::unique_ptr<const PackedWeights> packed = PackedWeights::Pack(w);
      auto run_packed = [&] { packed->MultiplyAdd(x.data(), in, rows, 0, out, y.data(), out); };
      auto run_sgemm = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows), static_cast<blasint>(out),
                    static_cast<blasint>(in), 1.0f, x.data(), static_cast<blasint>(in), weight.data(),
                    static_cast<blasint>(out), 1.0f, y.data(), static_cast<blasint>(out));
      };
      run_packed();
      run_sgemm();
      std::vector<double> packed_s, sgemm_s;
      for (int i = 0; i < std::max(o.repeats, 1); ++i) {
        packed_s.push_back(Seconds(run_packed));
        sgemm_s.push_back(Seconds(run_sgemm));
      }
      const double flops = 2.0 * static_cast<double>(rows) * static_cast<double>(in) * static_cast<double>(out);
      const double ours = flops / MedianOf(packed_s) / 1e9, theirs = flops / MedianOf(sgemm_s) / 1e9;
      nlohmann::json line = {{"bench", "gemm"},          {"rows", rows},
                             {"in", in},                 {"out", out},
                             {"packed_gflops", ours},    {"sgemm_gflops", theirs},
                             {"ratio", ours / theirs},   {"fma_peak_gflops", peak},
                             {"packed_of_peak", peak > 0 ? ours / peak : 0.0},
                             {"blas_core", BlasCoreName()}};
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterGemmBench(CLI::App& bench, CommandAction* action) {
  auto o = std::make_shared<GemmBenchOptions>();
  CLI::App* gemm = bench.add_subcommand("gemm", "tokvec's packed AVX-512 GEMM against cblas_sgemm, 1 thread");
  gemm->add_option("--rows", o->rows, "Row counts (comma-separated)")->delimiter(',')->capture_default_str();
  gemm->add_option("--shapes", o->shapes, "INxOUT weight shapes (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  gemm->add_option("--repeats", o->repeats, "Timed runs of each (median reported)")->capture_default_str();
  gemm->callback([o, action] { *action = [o] { return RunGemmBench(*o); }; });
}

}  // namespace tokvec::cli
