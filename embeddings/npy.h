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

namespace tokvec {

// `values` holds the product of `shape` floats, row-major.
std::string NpyFloat32(const float* values, const std::vector<int64_t>& shape);

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_NPY_H_
