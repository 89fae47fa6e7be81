// Intel AMX (Advanced Matrix Extensions; Sapphire Rapids and later Xeons): eight tile registers of up to 16 rows x
// 64 bytes, and TDPBUSD (u8 x s8 -> int32) / TDPBF16PS (bf16 x bf16 -> f32) multiplying whole tiles. The int8 and
// bf16 linear kernels (int8_linear.h, bf16_linear.h) run on them where these say yes; their weight panels are
// already in the layout a B tile takes (16 outputs x 4 bytes per row).
//
//   if (AmxInt8Available()) { LoadAmxTileConfig(); ...tile loads and TDPBUSD... }
//
// Linux (5.16+) hands a process the tiles' 8 KB of state only on request (arch_prctl ARCH_REQ_XCOMP_PERM), made
// once here; a kernel that refuses keeps the kernels on AVX-512. TOKVEC_DISABLE_CPU_FEATURES=amx-int8,amx-bf16
// turns either off (tests and benchmarks compare the paths).
#ifndef TOKVEC_KERNELS_AMX_H_
#define TOKVEC_KERNELS_AMX_H_

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace tokvec {

// The CPU has AMX-TILE and AMX-INT8 (AMX-BF16), Linux granted the tile state, and TOKVEC_DISABLE_CPU_FEATURES does
// not list "amx-int8" ("amx-bf16"). Asked once per process.
bool AmxInt8Available();
bool AmxBf16Available();

// Sets this thread's tiles 0-7 to 16 rows x 64 bytes (palette 1). Only where one of the above is true.
void LoadAmxTileConfig();

// GCC 12's _tile_loadd is an asm statement that does not say it reads memory, so the compiler may drop or delay
// stores a tile load is to read (a local buffer filled just before it came out as garbage at -O2). Call this
// between filling memory and loading tiles from it; `p` makes a local buffer count as seen.
inline void AmxMemoryBarrier(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

// The kernels' shared shape: 32 rows (A tiles 4, 5) x 1 or 2 panels of 16 outputs (B tiles 6, 7) summed into the
// C tiles 0-3 (rows 0-15 / 16-31 x panel 0 / 1), 64 bytes of each row per step (16 int8 quads or bf16 pairs).
inline constexpr int kAmxRows = 32;
inline constexpr int kAmxGroups = 16;  // 4-byte groups of a row per step

template <int kPanels>
__attribute__((target("amx-tile"))) inline void AmxZeroSums() {
  _tile_zero(0);
  _tile_zero(1);
  if constexpr (kPanels == 2) {
    _tile_zero(2);
    _tile_zero(3);
  }
}

// The last, partial step of each panel (`bytes` from `w` + n·panel_bytes) copied into zero-padded B tiles, so the
// packed panels need no padding.
template <int kPanels>
inline void AmxCopyTail(const uint8_t* w, int64_t panel_bytes, size_t bytes, uint8_t (&tail)[2][kAmxGroups * 64]) {
  std::memset(tail, 0, sizeof(tail));
  for (int n = 0; n < kPanels; ++n) std::memcpy(tail[n], w + n * panel_bytes, bytes);
  AmxMemoryBarrier(tail);
}

// The C tiles into acc[row][panel 0 | panel 1] (4-byte lanes: int32 or f32).
template <int kPanels, typename Lane>
__attribute__((target("amx-tile"))) inline void AmxStoreSums(Lane (&acc)[kAmxRows][32]) {
  _tile_stored(0, &acc[0][0], sizeof(acc[0]));
  _tile_stored(1, &acc[16][0], sizeof(acc[0]));
  if constexpr (kPanels == 2) {
    _tile_stored(2, &acc[0][16], sizeof(acc[0]));
    _tile_stored(3, &acc[16][16], sizeof(acc[0]));
  }
}

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_AMX_H_
