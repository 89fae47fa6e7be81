// OpenBLAS picks its kernel set (a "core": Haswell, SkylakeX, ...) from the CPU model when it loads. Debian 12's
// OpenBLAS 0.3.21 predates Intel's Emerald Rapids (family 6, model 0xCF) and later models: there it settles on
// Prescott's SSE3 kernels, and cblas_sgemm ([1024, 768] x [768, 2304], one thread) runs at 14-25 GFLOP/s instead of
// ~135. SelectBlasKernels() puts such a fallback right, once, before tokvec's first BLAS call:
//
//   - nothing happens when OPENBLAS_CORETYPE is set (the user chose), when OpenBLAS picked anything but Prescott,
//     or when the BLAS is not a run-time-dispatching OpenBLAS (no gotoblas_dynamic_init to call);
//   - otherwise the newest kernel set the CPU runs is asked for by name, through OpenBLAS's own start-up code
//     (gotoblas_dynamic_quit / gotoblas_dynamic_init with OPENBLAS_CORETYPE set for the moment): Cooperlake
//     (AVX-512 with BF16), SkylakeX (AVX-512), Haswell (AVX2 + FMA); the first one OpenBLAS then reports is kept.
//
// UseSingleThreadedBlas() (kernels/ops.h) calls it, so every op, `tokvec` at start and the Python module do.
#ifndef TOKVEC_KERNELS_BLAS_KERNELS_H_
#define TOKVEC_KERNELS_BLAS_KERNELS_H_

#include <string>

namespace tokvec {

struct BlasKernelChoice {
  std::string loaded;    // the core OpenBLAS chose by itself ("" when the BLAS does not say)
  std::string selected;  // the core in use after SelectBlasKernels ("" when the BLAS does not say)
};

// Runs once per process (later calls return the first answer). Not safe while another thread is inside a BLAS
// call or while OpenBLAS's own worker threads run (the switch empties its kernel table for a moment):
// UseSingleThreadedBlas stops them, then calls it, before tokvec's first BLAS call.
const BlasKernelChoice& SelectBlasKernels();

// The core OpenBLAS uses now, e.g. "Cooperlake"; "" for a BLAS without openblas_get_corename.
std::string BlasCoreName();

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_BLAS_KERNELS_H_
