// `tokvec bench gemm`: tokvec's packed AVX-512 GEMM (kernels/packed_gemm.h) against single-thread cblas_sgemm
// on the projection shapes of GPT-2/BERT, in the same run; prints one JSON line per shape.
//
//   tokvec bench gemm --rows 512,1024 --shapes 768x2304,768x768,768x3072,3072x768 --repeats 5
//   {"bench":"gemm","rows":512,"in":768,"out":2304,"packed_gflops":..,"sgemm_gflops":..,"ratio":..,
//    "fma_peak_gflops":..,"packed_of_peak":..}
//
// Both compute y[rows, out] += x·W for the kInOut (GPT-2 Conv1D) weight [in, out], one thread, the whole product in
// one call (the weight packed once before timing; sgemm packs on every call, as TiledLinearInto's tiles do).
// `ms` figures are medians of --repeats interleaved runs after one warm-up. fma_peak_gflops is a register-only
// loop of independent AVX-512 FMAs (24 chains, the micro-kernel's count) timed in the same run: the core's
// peak at the clock it runs now.
#ifndef TOKVEC_CLI_BENCH_GEMM_H_
#define TOKVEC_CLI_BENCH_GEMM_H_

#include "cli/command.h"

namespace tokvec::cli {

// Adds the `gemm` subcommand to `bench`.
void RegisterGemmBench(CLI::App& bench, CommandAction* action);

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_BENCH_GEMM_H_
