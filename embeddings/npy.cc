#include "embeddings/npy.h"

#include <cstdio>

#include "base/npz.h"

#include "fmt/format.h"

namespace tokvec {

std::string NpyFloat32(const float* values, const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return NpyArray("<f4", shape, std::string_view(reinterpret_cast<const char*>(values),
                                                 static_cast<size_t>(count) * sizeof(float)));
}

absl::StatusOr<NpyMatrixView> ParseNpyFloat32Matrix(std::string_view bytes) {
  constexpr std::string_view kMagic("\x93NUMPY\x01\x00", 8);
  if (bytes.size() < 10 || bytes.substr(0, 8) != kMagic) {
    return absl::InvalidArgumentError("not a version 1.0 .npy file");
  }
  const size_t header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  if (bytes.size() < 10 + header_length) return absl::InvalidArgumentError(".npy header is cut short");
  const std::string_view header = bytes.substr(10, header_length);
  constexpr std::string_view kPrefix = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  if (!header.starts_with(kPrefix)) {
    return absl::InvalidArgumentError(fmt::format(".npy header is not a C-order float32 array's: {}",
                                                  header.substr(0, 80)));
  }
  NpyMatrixView view;
  long long rows = -1, cols = -1;
  const std::string shape(header.substr(kPrefix.size(), header.find(')') - kPrefix.size()));
  if (std::sscanf(shape.c_str(), "%lld, %lld", &rows, &cols) != 2 || rows < 0 || cols < 0) {
    return absl::InvalidArgumentError(fmt::format(".npy shape ({}) is not two dimensions", shape));
  }
  view.rows = rows;
  view.cols = cols;
  view.data_offset = 10 + header_length;
  const unsigned __int128 need = static_cast<unsigned __int128>(rows) * static_cast<uint64_t>(cols) * sizeof(float);
  if (bytes.size() - view.data_offset != need) {
    return absl::InvalidArgumentError(fmt::format(".npy data holds {} bytes, not the {} x {} floats of its shape",
                                                  bytes.size() - view.data_offset, rows, cols));
  }
  return view;
}

}  // namespace tokvec
