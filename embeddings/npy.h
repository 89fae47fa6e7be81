// NumPy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html), version 1.0,
// for float32 arrays: the magic "\x93NUMPY", version 1 0, a little-endian uint16 header length, an ASCII dict
//   {'descr': '<f4', 'fortran_order': False, 'shape': (T, D), }
// padded with spaces and a newline so the data starts at a multiple of 64 bytes, then the raw row-major floats.
//
//   std::string bytes = NpyFloat32(x.data(), {x.rows(), x.cols()});   // numpy.load(...) gives shape (T, D)
#ifndef TOKVEC_EMBEDDINGS_NPY_H_
#define TOKVEC_EMBEDDINGS_NPY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tokvec {

// `values` holds the product of `shape` floats, row-major.
std::string NpyFloat32(const float* values, const std::vector<int64_t>& shape);

// The element types of the matrices tokvec reads: float32 vectors and the int8 / uint8 codes of quantized ones
// (retrieval/quantize.h; binary vectors are uint8 or int8 bytes of packed bits).
enum class NpyDtype { kFloat32, kInt8, kUint8 };
std::string_view NpyDtypeName(NpyDtype dtype);  // "float32", "int8", "uint8"

// A 2-D array as numpy.save writes it (version 1.0, '<f4', '|i1' or '|u1', C order): its type, shape and where
// its values start in the file's bytes. Anything else (another dtype, order or rank, a short or long file) is
// InvalidArgument.
struct NpyMatrixView {
  NpyDtype dtype = NpyDtype::kFloat32;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t data_offset = 0;  // bytes before the first value
};
absl::StatusOr<NpyMatrixView> ParseNpyMatrix(std::string_view bytes);
// The same, refusing any dtype but float32.
absl::StatusOr<NpyMatrixView> ParseNpyFloat32Matrix(std::string_view bytes);

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_NPY_H_
