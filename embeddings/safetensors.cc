#include "embeddings/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

// Headers larger than this are refused (the reference implementation uses the same 100 MB bound).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

// Bytes per element of every dtype the format defines; others are refused at Open.
int DTypeSize(std::string_view dtype) {
  static const std::pair<std::string_view, int> kSizes[] = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"F64", 8},     {"I64", 8}, {"U64", 8}};
  for (const auto& [name, size] : kSizes) {
    if (name == dtype) return size;
  }
  return 0;
}

}  // namespace

int64_t SafetensorsEntry::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t FloatTensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {  // infinity or NaN
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal: rebias 15 -> 127
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // signed zero
    out = sign;
  } else {  // subnormal half: normalize into a float32 normal
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ffu;
    out = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

float BFloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

absl::StatusOr<std::unique_ptr<SafetensorsFile>> SafetensorsFile::Open(const std::string& path) {
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = path;
  TOKVEC_ASSIGN_OR_RETURN(file->mapped_, MappedFile::Open(path));
  file->bytes_ = file->mapped_->data();
  TOKVEC_RETURN_IF_ERROR(file->ParseHeader());
  return file;
}

absl::StatusOr<std::unique_ptr<SafetensorsFile>> SafetensorsFile::FromBytes(std::string bytes, std::string name) {
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = std::move(name);
  file->owned_bytes_ = std::move(bytes);
  file->bytes_ = file->owned_bytes_;
  TOKVEC_RETURN_IF_ERROR(file->ParseHeader());
  return file;
}

absl::Status SafetensorsFile::ParseHeader() {
  // 1. The 8-byte header length, and the header inside the file.
  if (bytes_.size() < 8) {
    return absl::DataLossError(fmt::format(
        "'{}' is not a safetensors file: {} bytes, shorter than the 8-byte header length (truncated?)", path_,
        bytes_.size()));
  }
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes_.data(), 8);
  if (header_len > kMaxHeaderBytes) {
    return absl::InvalidArgumentError(fmt::format(
        "'{}': safetensors header length {} is larger than the {}-byte limit (not a safetensors file?)", path_,
        header_len, kMaxHeaderBytes));
  }
  if (header_len > bytes_.size() - 8) {
    return absl::DataLossError(fmt::format(
        "'{}': safetensors header length {} runs past the end of the {}-byte file (truncated?)", path_, header_len,
        bytes_.size()));
  }
  std::string_view header = bytes_.substr(8, header_len);
  data_ = bytes_.substr(8 + header_len);

  // 2. The JSON object.
  nlohmann::json json = nlohmann::json::parse(header.begin(), header.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("'{}': the safetensors header is not a JSON object (bytes 8..{})", path_, 8 + header_len));
  }

  // 3. Each entry: dtype, shape, data_offsets, checked against the data buffer.
  for (const auto& [name, value] : json.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) {
        return absl::InvalidArgumentError(fmt::format("'{}': __metadata__ is not a JSON object", path_));
      }
      for (const auto& [key, text] : value.items()) {
        if (!text.is_string()) {
          return absl::InvalidArgumentError(
              fmt::format("'{}': __metadata__ value of '{}' is not a string", path_, key));
        }
        metadata_[key] = text.get<std::string>();
      }
      continue;
    }
    auto bad = [&, &name = name](std::string_view why) {  // clang 14 cannot capture a structured binding.
      return absl::InvalidArgumentError(fmt::format("'{}': tensor '{}': {}", path_, name, why));
    };
    if (!value.is_object()) return bad("header entry is not a JSON object");
    SafetensorsEntry entry;
    entry.name = name;
    auto dtype = value.find("dtype");
    if (dtype == value.end() || !dtype->is_string()) return bad("missing string \"dtype\"");
    entry.dtype = dtype->get<std::string>();
    const int element_size = DTypeSize(entry.dtype);
    if (element_size == 0) {
      return bad(fmt::format("unsupported dtype '{}'; tokvec reads F32, F16 and BF16 weights", entry.dtype));
    }
    auto shape = value.find("shape");
    if (shape == value.end() || !shape->is_array()) return bad("missing array \"shape\"");
    uint64_t elements = 1;
    for (const auto& dim : *shape) {
      if (!dim.is_number_unsigned() && !(dim.is_number_integer() && dim.get<int64_t>() >= 0)) {
        return bad(fmt::format("shape {} has an entry that is not a non-negative integer", shape->dump()));
      }
      const uint64_t d = dim.get<uint64_t>();
      if (d != 0 && elements > std::numeric_limits<uint64_t>::max() / 8 / d) {
        return bad(fmt::format("shape {} overflows", shape->dump()));
      }
      elements *= d;
      entry.shape.push_back(static_cast<int64_t>(d));
    }
    auto offsets = value.find("data_offsets");
    if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 ||
        !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
      return bad("missing \"data_offsets\": [begin, end] of non-negative integers");
    }
    const uint64_t begin = (*offsets)[0].get<uint64_t>();
    const uint64_t end = (*offsets)[1].get<uint64_t>();
    if (begin > end) return bad(fmt::format("data_offsets [{}, {}] has begin > end", begin, end));
    if (end > data_.size()) {
      return absl::DataLossError(fmt::format(
          "'{}': tensor '{}': data_offsets [{}, {}] run past the {}-byte data buffer (file truncated?)", path_, name,
          begin, end, data_.size()));
    }
    if (end - begin != elements * element_size) {
      return bad(fmt::format("data_offsets [{}, {}] span {} bytes but shape {} of {} needs {}", begin, end,
                             end - begin, shape->dump(), entry.dtype, elements * element_size));
    }
    entry.begin = begin;
    entry.end = end;
    entries_.push_back(std::move(entry));
  }

  // 4. No two tensors share bytes.
  std::vector<const SafetensorsEntry*> by_offset;
  for (const auto& e : entries_) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const auto* a, const auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->begin < by_offset[i - 1]->end) {
      return absl::InvalidArgumentError(fmt::format("'{}': tensors '{}' and '{}' overlap in the data buffer", path_,
                                                    by_offset[i - 1]->name, by_offset[i]->name));
    }
  }
  std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return absl::OkStatus();
}

const SafetensorsEntry* SafetensorsFile::Find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const SafetensorsEntry& e, std::string_view n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &*it : nullptr;
}

absl::StatusOr<FloatTensor> SafetensorsFile::ReadFloat32(std::string_view name) {
  const SafetensorsEntry* entry = Find(name);
  if (entry == nullptr) {
    return absl::NotFoundError(fmt::format("'{}' has no tensor '{}'", path_, name));
  }
  FloatTensor tensor;
  tensor.shape = entry->shape;
  const int64_t n = entry->num_elements();
  const char* raw = data_.data() + entry->begin;
  if (entry->dtype == "F32") {
    if (reinterpret_cast<uintptr_t>(raw) % alignof(float) == 0) {
      tensor.data = reinterpret_cast<const float*>(raw);  // zero copy from the map
      return tensor;
    }
    std::vector<float>& out = converted_.emplace_back(static_cast<size_t>(n));
    std::memcpy(out.data(), raw, static_cast<size_t>(n) * sizeof(float));
    tensor.data = out.data();
    return tensor;
  }
  if (entry->dtype == "F16" || entry->dtype == "BF16") {
    const bool half = entry->dtype == "F16";
    std::vector<float>& out = converted_.emplace_back(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      uint16_t bits;
      std::memcpy(&bits, raw + 2 * i, 2);
      out[static_cast<size_t>(i)] = half ? HalfToFloat(bits) : BFloat16ToFloat(bits);
    }
    tensor.data = out.data();
    return tensor;
  }
  return absl::InvalidArgumentError(fmt::format(
      "'{}': tensor '{}' has dtype {}; tokvec reads F32, F16 and BF16 weights (convert the checkpoint)", path_, name,
      entry->dtype));
}

absl::StatusOr<std::string> SerializeSafetensors(const std::vector<NamedTensor>& tensors,
                                                 const std::map<std::string, std::string>& metadata) {
  std::vector<const NamedTensor*> sorted;
  for (const auto& t : tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  size_t offset = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const NamedTensor& t = *sorted[i];
    if (i > 0 && sorted[i - 1]->name == t.name) {
      return absl::InvalidArgumentError(fmt::format("tensor name '{}' appears twice", t.name));
    }
    size_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<size_t>(d);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + 4 * elements}}};
    offset += 4 * elements;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // the data buffer starts 8-byte aligned
  std::string out(8, '\0');
  const uint64_t header_len = json.size();
  std::memcpy(out.data(), &header_len, 8);
  out += json;
  out.reserve(out.size() + offset);
  for (const NamedTensor* t : sorted) {
    size_t elements = 1;
    for (int64_t d : t->shape) elements *= static_cast<size_t>(d);
    out.append(reinterpret_cast<const char*>(t->values), 4 * elements);
  }
  return out;
}

absl::Status WriteSafetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                              const std::map<std::string, std::string>& metadata) {
  TOKVEC_ASSIGN_OR_RETURN(std::string bytes, SerializeSafetensors(tensors, metadata));
  return WriteFileAtomically(path, bytes);
}

}  // namespace tokvec
