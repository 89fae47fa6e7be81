#include "kernels/amx.h"

#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "kernels/cpu_features.h"

namespace tokvec {
namespace {

// CPUID.(EAX=7, ECX=0):EDX bit 24 AMX-TILE, 25 AMX-INT8, 22 AMX-BF16; then the tile state from Linux.
bool TilesGranted(int feature_bit) {
#if defined(__x86_64__) && defined(SYS_arch_prctl)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  if (!((edx >> 24) & 1) || !((edx >> feature_bit) & 1) || !__builtin_cpu_supports("avx512bw")) return false;
  static const bool granted = [] {
    constexpr int kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return granted;
#else
  (void)feature_bit;
  return false;
#endif
}

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

}  // namespace

bool AmxInt8Available() {
  static const bool available = !CpuFeatureDisabled("amx-int8") && TilesGranted(25);
  return available;
}

bool AmxBf16Available() {
  static const bool available = !CpuFeatureDisabled("amx-bf16") && TilesGranted(22);
  return available;
}

__attribute__((target("amx-tile"))) void LoadAmxTileConfig() {
  static const TileConfig config;
  _tile_loadconfig(&config);
}

}  // namespace tokvec
