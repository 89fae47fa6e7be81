#include "embeddings/npy.h"

#include "fmt/format.h"

namespace tokvec {

std::string NpyFloat32(const float* values, const std::vector<int64_t>& shape) {
  std::string dims;
  int64_t count = 1;
  for (int64_t d : shape) {
    dims += fmt::format("{}, ", d);
    count *= d;
  }
  if (shape.size() > 1) dims.resize(dims.size() - 1);  // (T, D) but (T,) for one dimension
  std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}", dims);
  const size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(values), static_cast<size_t>(count) * sizeof(float));
  return out;
}

}  // namespace tokvec
