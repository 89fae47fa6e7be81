#include "kernels/cpu_features.h"

#include <cstdlib>

#include "absl/strings/str_split.h"

namespace tokvec {

bool CpuFeatureDisabled(std::string_view feature) {
  const char* list = std::getenv("TOKVEC_DISABLE_CPU_FEATURES");
  if (list == nullptr) return false;
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    if (std::string_view(item.data(), item.size()) == feature) return true;
  }
  return false;
}

#if defined(__x86_64__)
bool Avx512Available() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
#else
bool Avx512Available() { return false; }
#endif

}  // namespace tokvec
