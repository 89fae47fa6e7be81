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

std::string_view NpyDtypeName(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kFloat32: return "float32";
    case NpyDtype::kInt8: return "int8";
    case NpyDtype::kUint8: return "uint8";
  }
  return "?";
}

absl::StatusOr<NpyMatrixView> ParseNpyMatrix(std::string_view bytes) {
  constexpr std::string_view kMagic("\x93NUMPY\x01\x00", 8);
  if (bytes.size() < 10 || bytes.substr(0, 8) != kMagic) {
    return absl::InvalidArgumentError("not a version 1.0 .npy file");
  }
  const size_t header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  if (bytes.size() < 10 + header_length) return absl::InvalidArgumentError(".npy header is cut short");
  const std::string_view header = bytes.substr(10, header_length);
  // numpy.save writes the keys in this order, the type as '<f4' (float32), '|i1' (int8) or '|u1' (uint8).
  constexpr std::string_view kDescr = "{'descr': '", kRest = "', 'fortran_order': False, 'shape': (";
  NpyMatrixView view;
  size_t width = 0;
  const std::string_view descr = header.starts_with(kDescr) ? header.substr(kDescr.size(), 3) : std::string_view();
  if (descr == "<f4") {
    view.dtype = NpyDtype::kFloat32, width = 4;
  } else if (descr == "|i1") {
    view.dtype = NpyDtype::kInt8, width = 1;
  } else if (descr == "|u1") {
    view.dtype = NpyDtype::kUint8, width = 1;
  }
  const size_t shape_at = kDescr.size() + 3 + kRest.size();
  if (width == 0 || header.substr(kDescr.size() + 3, kRest.size()) != kRest) {
    return absl::InvalidArgumentError(fmt::format(
        ".npy header is not a C-order float32, int8 or uint8 array's: {}", header.substr(0, 80)));
  }
  long long rows = -1, cols = -1;
  const size_t close = header.find(')', shape_at);
  const std::string shape(header.substr(shape_at, close == std::string_view::npos ? 0 : close - shape_at));
  int used = 0;  // numpy writes (N, D); NpyArray (N, D,)
  if (std::sscanf(shape.c_str(), "%lld, %lld%n", &rows, &cols, &used) != 2 || rows < 0 || cols < 0 ||
      (shape.c_str()[used] != '\0' && std::string_view(shape.c_str() + used) != ",")) {
    return absl::InvalidArgumentError(fmt::format(".npy shape ({}) is not two dimensions", shape));
  }
  view.rows = rows;
  view.cols = cols;
  view.data_offset = 10 + header_length;
  const unsigned __int128 need = static_cast<unsigned __int128>(rows) * static_cast<uint64_t>(cols) * width;
  if (bytes.size() - view.data_offset != need) {
    return absl::InvalidArgumentError(fmt::format(".npy data holds {} bytes, not the {} x {} {} values of its shape",
                                                  bytes.size() - view.data_offset, rows, cols,
                                                  NpyDtypeName(view.dtype)));
  }
  return view;
}

absl::StatusOr<NpyMatrixView> ParseNpyFloat32Matrix(std::string_view bytes) {
  absl::StatusOr<NpyMatrixView> view = ParseNpyMatrix(bytes);
  if (view.ok() && view->dtype != NpyDtype::kFloat32) {
    return absl::InvalidArgumentError(
        fmt::format(".npy holds {} values, not float32", NpyDtypeName(view->dtype)));
  }
  return view;
}

}  // namespace tokvec
