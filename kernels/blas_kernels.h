// OpenBLAS picks its kernel set (a "core": Haswell, SkylakeX, ...) from the CPU model when it loads. Debian 12's
// OpenBLAS 0.3.21 knows Intel models up to Sapphire Rapids and Alder Lake; on later ones (Raptor Lake, Meteor,
// Lunar and Arrow Lake, Emerald Rapids: family 6, model 0xCF, ...) it settles on Prescott's SSE3 kernels, and
// cblas_sgemm ([1024, 768] x [768, 2304], one thread) ran at 23 GFLOP/s instead of 98-138 on an Emerald Rapids
// Xeon. SelectBlasKernels() puts such a fallback right, once, before tokvec's first BLAS call:
//
//   - nothing happens when OPENBLAS_CORETYPE is set (the user chose), when OpenBLAS picked anything but Prescott,
//     when the BLAS is not a run-time-dispatching OpenBLAS (no gotoblas_dynamic_init to call), or when the
//     process already runs other threads (they could call getenv or BLAS while the switch runs);
//   - otherwise the newest kernel set the CPU runs is asked for, through OpenBLAS's own start-up code
//     (gotoblas_dynamic_quit / gotoblas_dynamic_init with OPENBLAS_CORETYPE set for the moment): Cooperlake
//     (AVX-512 with BF16), SkylakeX (AVX-512), Haswell (AVX2 + FMA); the first one OpenBLAS then reports is kept.
//     (0.3.21 does not accept the name "Cooperlake" and falls back to its feature probe, which gives Cooperlake
//     on such a CPU; with OPENBLAS_VERBOSE set it prints "Core not found: Cooperlake" first.)
//
// UseSingleThreadedBlas() (kernels/ops.h) calls it: `tokvec` at start, Model::Load on the loading thread (so the
// Python module and C++ programs before their first op, which may run on a worker thread), and every op.
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
