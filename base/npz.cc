#include "base/npz.h"

#include <zlib.h>

#include <limits>

#include "fmt/format.h"

namespace tokvec {
namespace {

void Put16(std::string* out, uint32_t value) {
  out->push_back(static_cast<char>(value & 0xff));
  out->push_back(static_cast<char>((value >> 8) & 0xff));
}

void Put32(std::string* out, uint32_t value) {
  Put16(out, value & 0xffff);
  Put16(out, value >> 16);
}

// The fields a local file header and a central directory entry share: version needed (2.0), flags, method
// (stored), time and date (1980-01-01 00:00), CRC-32, compressed and uncompressed sizes, name length, extra length.
void PutCommon(std::string* out, uint32_t crc, uint32_t size, size_t name_size) {
  Put16(out, 20);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, (0 << 9) | (1 << 5) | 1);
  Put32(out, crc);
  Put32(out, size);
  Put32(out, size);
  Put16(out, static_cast<uint32_t>(name_size));
  Put16(out, 0);
}

}  // namespace

std::string NpyArray(std::string_view descr, const std::vector<int64_t>& shape, std::string_view data) {
  std::string dims;
  for (int64_t d : shape) dims += fmt::format("{}, ", d);
  if (shape.size() > 1) dims.resize(dims.size() - 1);  // (N, L) but (N,) for one dimension
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  const size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(data);
  return out;
}

absl::StatusOr<std::string> NpzArchive(const std::vector<std::pair<std::string, std::string>>& members) {
  constexpr uint64_t kLimit = std::numeric_limits<uint32_t>::max();
  uint64_t total = 22;
  for (const auto& [name, data] : members) total += 30 + 46 + 2 * (name.size() + 4) + data.size();
  if (total > kLimit || members.size() > 0xffff) {
    return absl::InvalidArgumentError(
        fmt::format("the arrays take {} bytes, more than a .npz without ZIP64 holds (4 GiB): encode fewer lines "
                    "per file (--shard)", total));
  }
  std::string out;
  out.reserve(total);
  std::string directory;
  for (const auto& [name, data] : members) {
    const std::string file = name + ".npy";
    const uint32_t crc = static_cast<uint32_t>(
        crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(data.data()), data.size()));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    Put32(&out, 0x04034b50);
    PutCommon(&out, crc, static_cast<uint32_t>(data.size()), file.size());
    out += file;
    out += data;
    Put32(&directory, 0x02014b50);
    Put16(&directory, 20);  // made by: version 2.0
    PutCommon(&directory, crc, static_cast<uint32_t>(data.size()), file.size());
    Put16(&directory, 0);   // comment length
    Put16(&directory, 0);   // disk number
    Put16(&directory, 0);   // internal attributes
    Put32(&directory, 0);   // external attributes
    Put32(&directory, offset);
    directory += file;
  }
  const uint32_t directory_offset = static_cast<uint32_t>(out.size());
  out += directory;
  Put32(&out, 0x06054b50);
  Put16(&out, 0);
  Put16(&out, 0);
  Put16(&out, static_cast<uint32_t>(members.size()));
  Put16(&out, static_cast<uint32_t>(members.size()));
  Put32(&out, static_cast<uint32_t>(directory.size()));
  Put32(&out, directory_offset);
  Put16(&out, 0);
  return out;
}

}  // namespace tokvec
