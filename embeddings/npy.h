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
#include <vector>
#include <string_view>

#include "absl/status/statusor.h"

namespace tokvec {

// `values` holds the product of `shape` floats, row-major.
std::string NpyFloat32(const float* values, const std::vector<int64_t>& shape);

// A 2-D float32 array as NpyFloat32 writes it (version 1.0, '<f4', C order): its shape and where its floats
// start in the file's bytes. Anything else (another dtype, order or rank, a short file) is InvalidArgument.
struct NpyMatrixView {
  int64_t rows = 0;
  int64_t cols = 0;
  size_t data_offset = 0;  // bytes before the first float
};
absl::StatusOr<NpyMatrixView> ParseNpyFloat32Matrix(std::string_view bytes);

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_NPY_H_
