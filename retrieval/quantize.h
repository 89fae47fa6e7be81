// Embeddings in fewer bits, with sentence-transformers' definitions (sentence_transformers.quantization
// .quantize_embeddings), so an index written here is the index its users build:
//
//   float32  the vectors as they are
//   int8     per dimension d: (x - lo[d]) / ((hi[d] - lo[d]) / 255) - 128, cast to int8   [N, D]
//   uint8    the same without the - 128, cast to uint8                                    [N, D]
//   ubinary  one bit per dimension, x > 0, packed 8 to a byte, the first dimension in the high bit   [N, D/8]
//   binary   those bytes - 128, as int8                                                    [N, D/8]
//
// lo and hi (the "ranges", [2, D]) come from calibration embeddings, or from the batch itself (the rows being
// quantized) when none are given, as sentence-transformers does. Casts follow NumPy's float32 -> int8/uint8 on
// x86-64: truncation toward zero, then the low byte of the 32-bit integer (300.7 -> 44, -1.5 -> 255 as uint8;
// NaN, infinities and values past 32 bits -> 0).
// Binary rows are packed each on their own, padded with zero bits to whole bytes: the same bytes as
// sentence-transformers' (which packs the flattened array) whenever D is a multiple of 8.
//
//   TOKVEC_ASSIGN_OR_RETURN(Precision p, ParsePrecision("ubinary"));
//   TOKVEC_ASSIGN_OR_RETURN(QuantizedMatrix q, Quantize(vectors.view(), p, /*ranges=*/nullptr));
//   std::string npy = QuantizedNpy(q);   // numpy.load(...): uint8 [N, D/8]
#ifndef TOKVEC_RETRIEVAL_QUANTIZE_H_
#define TOKVEC_RETRIEVAL_QUANTIZE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace tokvec {

enum class Precision { kFloat32, kInt8, kUint8, kBinary, kUbinary };

// "float32", "int8", "uint8", "binary", "ubinary"; anything else is InvalidArgument listing them.
absl::StatusOr<Precision> ParsePrecision(std::string_view name);
std::string_view PrecisionName(Precision precision);

// Per-dimension lower and upper ends for int8/uint8: row 0 the minimums, row 1 the maximums, as
// sentence-transformers' `ranges` ([2, D]).
struct QuantizationRanges {
  std::vector<float> lo, hi;
};
// The column minimums and maximums of `calibration` (its rows are embeddings). InvalidArgument with no rows.
absl::StatusOr<QuantizationRanges> RangesOf(MatrixView calibration);
// Ranges from a [2, D] matrix (a saved `ranges` array).
absl::StatusOr<QuantizationRanges> RangesFromMatrix(MatrixView ranges);

// Quantized rows: `cols` values per row of one byte each (int8 and binary as two's complement).
struct QuantizedMatrix {
  Precision precision = Precision::kUbinary;
  int64_t rows = 0;
  int64_t cols = 0;  // D for int8/uint8, ceil(D / 8) for binary/ubinary
  std::vector<uint8_t> bytes;
};

// `precision` must not be float32. `ranges` (int8/uint8 only; nullptr: from `embeddings` itself) must have
// embeddings.cols dimensions.
absl::StatusOr<QuantizedMatrix> Quantize(MatrixView embeddings, Precision precision,
                                         const QuantizationRanges* ranges);

// Whether the codes of `precision` are int8 (int8, binary) rather than uint8.
bool IsSignedPrecision(Precision precision);

// Row `row` of `q` as a JSON array of integers (int8 codes as signed), values joined by `separator`.
std::string QuantizedRowJson(const QuantizedMatrix& q, int64_t row, std::string_view separator = ",");

// The .npy file of `q`: '|i1' for int8 and binary, '|u1' for uint8 and ubinary, shape (rows, cols).
std::string QuantizedNpy(const QuantizedMatrix& q);

}  // namespace tokvec

#endif  // TOKVEC_RETRIEVAL_QUANTIZE_H_
