#include "kernels/low_precision_linear.h"

#include <string>

#include "fmt/format.h"
#include "kernels/cpu_features.h"

namespace tokvec {

absl::StatusOr<LinearDtype> ParseLinearDtype(std::string_view name) {
  if (name == "f32") return LinearDtype::kF32;
  if (name == "bf16") return LinearDtype::kBf16;
  if (name == "int8") return LinearDtype::kInt8;
  return absl::InvalidArgumentError(fmt::format("unknown dtype '{}'; expected f32, bf16 or int8", name));
}

std::string_view LinearDtypeName(LinearDtype dtype) {
  switch (dtype) {
    case LinearDtype::kF32:
      return "f32";
    case LinearDtype::kBf16:
      return "bf16";
    case LinearDtype::kInt8:
      return "int8";
  }
  return "f32";
}

absl::Status CheckCpuSupports(LinearDtype dtype) {
  if (dtype == LinearDtype::kF32) return absl::OkStatus();
  const bool bf16 = dtype == LinearDtype::kBf16;
  const std::string_view feature = bf16 ? "avx512bf16" : "avx512vnni";
  bool supported = false;
#if defined(__x86_64__)
  __builtin_cpu_init();
  supported = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl") && (bf16 ? __builtin_cpu_supports("avx512bf16") : __builtin_cpu_supports("avx512vnni"));
#endif
  if (supported && !CpuFeatureDisabled(feature)) return absl::OkStatus();
  return absl::FailedPreconditionError(
      fmt::format("--dtype {} needs a CPU with AVX-512 {} ({}), which this one lacks; use --dtype f32",
                  LinearDtypeName(dtype), bf16 ? "BF16" : "VNNI", feature));
}

absl::StatusOr<std::unique_ptr<LowPrecisionWeights>> PackLowPrecision(const LinearWeights& w, LinearDtype dtype) {
  if (dtype == LinearDtype::kF32) {
    return absl::InvalidArgumentError("PackLowPrecision: f32 weights are used as they are, not packed");
  }
  if (absl::Status status = CheckCpuSupports(dtype); !status.ok()) return status;
  if (dtype == LinearDtype::kInt8 && w.in_features() > kInt8MaxInFeatures) {
    return absl::InvalidArgumentError(fmt::format(
        "--dtype int8 handles layers of at most {} inputs (int32 sums); this one has {}; use --dtype bf16 or f32",
        kInt8MaxInFeatures, w.in_features()));
  }
  auto packed = std::make_unique<LowPrecisionWeights>();
  packed->dtype = dtype;
  if (dtype == LinearDtype::kBf16) {
    packed->bf16 = PackBf16(w);
  } else {
    packed->int8 = PackInt8(w);
  }
  return packed;
}

absl::StatusOr<std::vector<std::unique_ptr<LowPrecisionWeights>>> PackLayers(const std::vector<LinearWeights*>& layers,
                                                                             LinearDtype dtype) {
  std::vector<std::unique_ptr<LowPrecisionWeights>> packed;
  if (dtype != LinearDtype::kF32) {
    for (const LinearWeights* w : layers) {
      absl::StatusOr<std::unique_ptr<LowPrecisionWeights>> one = PackLowPrecision(*w, dtype);
      if (!one.ok()) return one.status();
      packed.push_back(std::move(*one));
    }
  }
  for (size_t i = 0; i < layers.size(); ++i) layers[i]->low = packed.empty() ? nullptr : packed[i].get();
  return packed;
}

void LowPrecisionTileInto(const float* x, int64_t ldx, int64_t rows, const LowPrecisionWeights& w, int64_t col0,
                          int64_t cols, float* y, int64_t ldy) {
  if (w.dtype == LinearDtype::kBf16) {
    Bf16TileInto(x, ldx, rows, w.bf16, col0, cols, y, ldy);
  } else {
    Int8TileInto(x, ldx, rows, w.int8, col0, cols, y, ldy);
  }
}

}  // namespace tokvec
