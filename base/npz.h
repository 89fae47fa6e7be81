// NumPy's array files, written: .npy (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html,
// version 1.0) and .npz, a ZIP archive of .npy members stored uncompressed as numpy.savez writes them.
//
//   std::string ids = NpyArray("<i8", {rows, length}, AsBytes(values));       // numpy.load(...).shape == (rows, length)
//   TOKVEC_ASSIGN_OR_RETURN(std::string npz, NpzArchive({{"input_ids", ids}, {"attention_mask", mask}}));
//   np.load("out.npz")["input_ids"]
#ifndef TOKVEC_BASE_NPZ_H_
#define TOKVEC_BASE_NPZ_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tokvec {

// A .npy file: the magic "\x93NUMPY", version 1 0, a little-endian uint16 header length, the ASCII dict
//   {'descr': '<i8', 'fortran_order': False, 'shape': (N, L), }
// padded with spaces and a newline so the data starts at a multiple of 64 bytes, then `data` (row-major values
// of the type `descr` names, e.g. '<f4', '<i8'; product(shape) of them).
std::string NpyArray(std::string_view descr, const std::vector<int64_t>& shape, std::string_view data);

// The bytes of a vector of trivially copyable values (little-endian on the machines tokvec builds for).
template <typename T>
std::string_view AsBytes(const std::vector<T>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)};
}

// A .npz archive: each (name, .npy bytes) as member "name.npy", stored (no compression, CRC-32 from zlib), with
// ZIP's central directory. InvalidArgument when a member or the archive passes 4 GiB (no ZIP64 here).
absl::StatusOr<std::string> NpzArchive(const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace tokvec

#endif  // TOKVEC_BASE_NPZ_H_
