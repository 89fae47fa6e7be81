#include "kernels/blas_kernels.h"

#include <dirent.h>
#include <dlfcn.h>
#include <strings.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace tokvec {
namespace {

// Looked up at run time, not linked: a BLAS other than a DYNAMIC_ARCH OpenBLAS lacks them, and then nothing is done.
using CoreNameFn = char* (*)();
using VoidFn = void (*)();

CoreNameFn CoreNameFunction() {
  return reinterpret_cast<CoreNameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
}

// The kernel sets to ask for, newest first, among those the CPU runs.
std::vector<const char*> Candidates() {
  std::vector<const char*> names;
#if defined(__x86_64__)
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512cd");
  if (avx512 && __builtin_cpu_supports("avx512bf16")) names.push_back("Cooperlake");
  if (avx512) names.push_back("SkylakeX");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) names.push_back("Haswell");
#endif
  return names;
}

// Threads of this process (Linux: /proc/self/task), 0 when unknown.
size_t ThreadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  size_t n = 0;
  while (const dirent* entry = readdir(dir)) n += entry->d_name[0] != '.';
  closedir(dir);
  return n;
}

BlasKernelChoice Select() {
  BlasKernelChoice choice;
  const CoreNameFn core_name = CoreNameFunction();
  if (core_name == nullptr) return choice;
  choice.loaded = choice.selected = core_name();
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || choice.loaded != "Prescott") return choice;
  const std::vector<const char*> candidates = Candidates();
  if (candidates.empty()) return choice;  // a CPU Prescott's kernels suit
  // The switch sets the environment and empties OpenBLAS's kernel table for a moment: only while this is the
  // process's one thread (`tokvec` at start; a host program that already runs threads, which may call getenv or
  // BLAS meanwhile, keeps OpenBLAS's choice).
  if (ThreadCount() != 1) return choice;
  const auto quit = reinterpret_cast<VoidFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
  const auto init = reinterpret_cast<VoidFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
  if (quit == nullptr || init == nullptr) return choice;
  for (const char* name : candidates) {
    setenv("OPENBLAS_CORETYPE", name, 1);
    quit();
    init();
    unsetenv("OPENBLAS_CORETYPE");
    if (strcasecmp(core_name(), name) == 0) {
      choice.selected = core_name();
      return choice;
    }
  }
  // None took: OpenBLAS's own choice again.
  quit();
  init();
  choice.selected = core_name();
  return choice;
}

}  // namespace

const BlasKernelChoice& SelectBlasKernels() {
  static const BlasKernelChoice choice = Select();
  return choice;
}

std::string BlasCoreName() {
  const CoreNameFn core_name = CoreNameFunction();
  return core_name == nullptr ? std::string() : std::string(core_name());
}

}  // namespace tokvec
