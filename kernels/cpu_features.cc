#include "kernels/cpu_features.h"

namespace tokvec {

#if defined(__x86_64__)
bool Avx512Available() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
#else
bool Avx512Available() { return false; }
#endif

}  // namespace tokvec
