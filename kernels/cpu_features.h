// What the CPU can run, asked once per process: the kernels pick their AVX-512 paths from it at run time, so the
// default build needs no -march flag and the same binary runs on any x86-64 (and links elsewhere, where every
// answer is false).
//
//   if (Avx512Available()) { ...AVX-512F path... } else { ...portable loop... }
//
// low_precision_linear.h asks for the bf16/VNNI extensions separately (CheckCpuSupports), amx.h for AMX.
#ifndef TOKVEC_KERNELS_CPU_FEATURES_H_
#define TOKVEC_KERNELS_CPU_FEATURES_H_

#include <string_view>

namespace tokvec {

// True when the CPU runs AVX-512F (checked once).
bool Avx512Available();

// True when TOKVEC_DISABLE_CPU_FEATURES (a comma-separated list, e.g. "avx512bf16,amx-int8") names `feature`:
// tests and benchmarks see the unsupported-CPU error, or the path without an extension, on any CPU.
bool CpuFeatureDisabled(std::string_view feature);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_CPU_FEATURES_H_
