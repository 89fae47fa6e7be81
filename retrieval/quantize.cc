#include "retrieval/quantize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/npz.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// NumPy's float32 -> (u)int8 cast on x86-64: cvttss2si to a 32-bit integer (NaN, infinities and values past 32
// bits give INT32_MIN), then the low byte.
uint8_t CastLowByte(float x) {
  if (!(std::fabs(x) < 2147483648.0f)) return 0;  // also NaN
  return static_cast<uint8_t>(static_cast<uint32_t>(static_cast<int32_t>(x)));
}

}  // namespace

absl::StatusOr<Precision> ParsePrecision(std::string_view name) {
  if (name == "float32") return Precision::kFloat32;
  if (name == "int8") return Precision::kInt8;
  if (name == "uint8") return Precision::kUint8;
  if (name == "binary") return Precision::kBinary;
  if (name == "ubinary") return Precision::kUbinary;
  return absl::InvalidArgumentError(
      fmt::format("unknown precision '{}' (float32, int8, uint8, binary, ubinary)", name));
}

std::string_view PrecisionName(Precision precision) {
  switch (precision) {
    case Precision::kFloat32: return "float32";
    case Precision::kInt8: return "int8";
    case Precision::kUint8: return "uint8";
    case Precision::kBinary: return "binary";
    case Precision::kUbinary: return "ubinary";
  }
  return "?";
}

absl::StatusOr<QuantizationRanges> RangesOf(MatrixView calibration) {
  if (calibration.rows == 0) return absl::InvalidArgumentError("no embeddings to compute int8 ranges from");
  QuantizationRanges ranges;
  ranges.lo.assign(calibration.row(0), calibration.row(0) + calibration.cols);
  ranges.hi = ranges.lo;
  for (int64_t r = 1; r < calibration.rows; ++r) {
    const float* row = calibration.row(r);
    for (int64_t d = 0; d < calibration.cols; ++d) {
      float& lo = ranges.lo[d];
      float& hi = ranges.hi[d];
      if (std::isnan(lo)) continue;  // np.min / np.max: a NaN anywhere in the column is the answer
      if (std::isnan(row[d])) {
        lo = hi = row[d];
        continue;
      }
      lo = std::min(lo, row[d]);
      hi = std::max(hi, row[d]);
    }
  }
  return ranges;
}

absl::StatusOr<QuantizationRanges> RangesFromMatrix(MatrixView ranges) {
  if (ranges.rows != 2) {
    return absl::InvalidArgumentError(
        fmt::format("ranges must be [2, D] (minimums, maximums), not [{}, {}]", ranges.rows, ranges.cols));
  }
  return QuantizationRanges{{ranges.row(0), ranges.row(0) + ranges.cols}, {ranges.row(1), ranges.row(1) + ranges.cols}};
}

absl::StatusOr<QuantizedMatrix> Quantize(MatrixView embeddings, Precision precision,
                                         const QuantizationRanges* ranges) {
  QuantizedMatrix q{.precision = precision, .rows = embeddings.rows};
  const int64_t d = embeddings.cols;
  switch (precision) {
    case Precision::kFloat32:
      return absl::InvalidArgumentError("float32 is not a quantized precision");
    case Precision::kInt8:
    case Precision::kUint8: {
      QuantizationRanges own;
      q.cols = d;
      if (ranges == nullptr) {
        if (embeddings.rows == 0) return q;
        auto computed = RangesOf(embeddings);
        if (!computed.ok()) return computed.status();
        own = *std::move(computed);
        ranges = &own;
      }
      if (static_cast<int64_t>(ranges->lo.size()) != d || static_cast<int64_t>(ranges->hi.size()) != d) {
        return absl::InvalidArgumentError(
            fmt::format("ranges have {} dimensions, the embeddings {}", ranges->lo.size(), d));
      }
      std::vector<float> steps(static_cast<size_t>(d));
      for (int64_t j = 0; j < d; ++j) steps[j] = (ranges->hi[j] - ranges->lo[j]) / 255.0f;
      const float offset = precision == Precision::kInt8 ? 128.0f : 0.0f;
      q.bytes.resize(static_cast<size_t>(q.rows * d));
      for (int64_t r = 0; r < q.rows; ++r) {
        const float* row = embeddings.row(r);
        uint8_t* out = q.bytes.data() + r * d;
        for (int64_t j = 0; j < d; ++j) out[j] = CastLowByte((row[j] - ranges->lo[j]) / steps[j] - offset);
      }
      return q;
    }
    case Precision::kBinary:
    case Precision::kUbinary: {
      if (ranges != nullptr) return absl::InvalidArgumentError("ranges apply to int8 and uint8 only");
      q.cols = (d + 7) / 8;
      q.bytes.assign(static_cast<size_t>(q.rows * q.cols), 0);
      const uint8_t flip = precision == Precision::kBinary ? 0x80 : 0;  // byte - 128 as int8 = byte ^ 0x80
      for (int64_t r = 0; r < q.rows; ++r) {
        const float* row = embeddings.row(r);
        uint8_t* out = q.bytes.data() + r * q.cols;
        for (int64_t j = 0; j < d; ++j) {
          if (row[j] > 0) out[j / 8] |= static_cast<uint8_t>(0x80u >> (j % 8));
        }
        for (int64_t b = 0; b < q.cols; ++b) out[b] ^= flip;
      }
      return q;
    }
  }
  return absl::InvalidArgumentError("unknown precision");
}

bool IsSignedPrecision(Precision precision) {
  return precision == Precision::kInt8 || precision == Precision::kBinary;
}

std::string QuantizedRowJson(const QuantizedMatrix& q, int64_t row, std::string_view separator) {
  const bool is_signed = IsSignedPrecision(q.precision);
  std::string out = "[";
  for (int64_t j = 0; j < q.cols; ++j) {
    const uint8_t b = q.bytes[static_cast<size_t>(row * q.cols + j)];
    if (j > 0) out += separator;
    out += std::to_string(is_signed ? static_cast<int>(static_cast<int8_t>(b)) : int{b});
  }
  return out + "]";
}

std::string QuantizedNpy(const QuantizedMatrix& q) {
  return NpyArray(IsSignedPrecision(q.precision) ? "|i1" : "|u1", {q.rows, q.cols},
                  std::string_view(reinterpret_cast<const char*>(q.bytes.data()), q.bytes.size()));
}

}  // namespace tokvec
