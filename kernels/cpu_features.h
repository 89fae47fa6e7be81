// What the CPU can run, asked once per process: the kernels pick their AVX-512 paths from it at run time, so the
// default build needs no -march flag and the same binary runs on any x86-64 (and links elsewhere, where every
// answer is false).
//
//   if (Avx512Available()) { ...AVX-512F path... } else { ...portable loop... }
//
// low_precision_linear.h asks for the bf16/VNNI extensions separately (CheckCpuSupports).
#ifndef TOKVEC_KERNELS_CPU_FEATURES_H_
#define TOKVEC_KERNELS_CPU_FEATURES_H_

namespace tokvec {

// True when the CPU runs AVX-512F (checked once).
bool Avx512Available();

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_CPU_FEATURES_H_
