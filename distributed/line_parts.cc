#include "distributed/line_parts.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "base/file_io.h"
#include "base/json_fields.h"
#include "base/status_macros.h"
#include "embeddings/npy.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec::distributed {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string RecordPath(const std::string& dir, int64_t part) { return PartPath(dir, part, "json"); }

// The records in `dir` (part-*.json), by part number; malformed ones are skipped.
std::map<int64_t, json> ReadRecords(const std::string& dir) {
  std::map<int64_t, json> records;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("part-") || !name.ends_with(".json")) continue;
    absl::StatusOr<std::string> text = ReadFile(entry.path().string());
    if (!text.ok()) continue;
    json record = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!record.is_object() || !record["part"].is_number_integer()) continue;
    const int64_t part = record["part"].get<int64_t>();  // before the move: json's operator= takes its argument by value
    records[part] = std::move(record);
  }
  return records;
}

}  // namespace

uint64_t Fnv1a64(std::string_view bytes, uint64_t hash) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

absl::StatusOr<uint64_t> Fnv1a64File(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  uint64_t hash = 0xcbf29ce484222325ULL;
  std::string buffer(1 << 20, '\0');
  while (true) {
    const size_t got = std::fread(buffer.data(), 1, buffer.size(), file);
    if (got == 0) break;
    hash = Fnv1a64(std::string_view(buffer.data(), got), hash);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return absl::DataLossError(fmt::format("cannot read '{}'", path));
  return hash;
}

absl::StatusOr<std::string> JobKey(const std::vector<std::string>& inputs, const std::string& model_dir,
                                   const std::string& options_json) {
  json key;
  key["inputs"] = json::array();
  for (const std::string& input : inputs) {
    std::error_code error;
    const uintmax_t size = fs::file_size(input, error);
    if (error) return absl::NotFoundError(fmt::format("cannot read '{}': {}", input, error.message()));
    TOKVEC_ASSIGN_OR_RETURN(uint64_t hash, Fnv1a64File(input));
    key["inputs"].push_back({{"path", input}, {"bytes", size}, {"fnv1a64", fmt::format("{:016x}", hash)}});
  }
  json model = {{"path", model_dir}};
  if (fs::is_regular_file(model_dir)) {  // a tokenizer file (encode)
    TOKVEC_ASSIGN_OR_RETURN(uint64_t hash, Fnv1a64File(model_dir));
    model["file"] = fmt::format("{:016x}", hash);
  }
  // config.json and the weights: model.safetensors, or model.safetensors.index.json and every shard.
  std::vector<std::string> names = {"config.json", "model.safetensors.index.json"};
  std::error_code listing_error;
  if (fs::is_directory(model_dir)) {
    for (const auto& entry : fs::directory_iterator(model_dir, listing_error)) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with(".safetensors")) names.push_back(name);
    }
  }
  for (const std::string& name : names) {
    const std::string path = (fs::path(model_dir) / name).string();
    if (!fs::is_regular_file(path)) continue;
    TOKVEC_ASSIGN_OR_RETURN(uint64_t hash, Fnv1a64File(path));
    model[name] = fmt::format("{:016x}", hash);
  }
  key["model"] = std::move(model);
  key["options"] = json::parse(options_json, nullptr, false);
  return key.dump();
}

std::string PartPath(const std::string& dir, int64_t part, std::string_view extension) {
  return (fs::path(dir) / fmt::format("part-{:05d}.{}", part, extension)).string();
}

bool PartIsComplete(const std::string& dir, int64_t part, int64_t parts, const std::string& key) {
  absl::StatusOr<std::string> text = ReadFile(RecordPath(dir, part));
  if (!text.ok()) return false;
  json record = json::parse(*text, nullptr, false);
  if (!record.is_object() || OptionalInt(record, "parts", int64_t{-1}) != parts ||
      OptionalString(record, "key") != key) {
    return false;
  }
  const std::string name = OptionalString(record, "file");
  if (name.empty() || name.find('/') != std::string::npos || !name.starts_with(fmt::format("part-{:05d}.", part))) {
    return false;
  }
  const std::string file = (fs::path(dir) / name).string();
  std::error_code error;
  const uintmax_t size = fs::file_size(file, error);
  if (error || static_cast<int64_t>(size) != OptionalInt(record, "bytes", int64_t{-1})) return false;
  absl::StatusOr<uint64_t> hash = Fnv1a64File(file);
  return hash.ok() && fmt::format("{:016x}", *hash) == OptionalString(record, "fnv1a64");
}

absl::Status WritePart(const std::string& dir, int64_t part, int64_t parts, const std::string& key,
                       std::string_view extension, std::string_view bytes, int64_t lines) {
  const std::string path = PartPath(dir, part, extension);
  TOKVEC_RETURN_IF_ERROR(WriteFileAtomically(path, bytes));
  const json record = {{"part", part},
                       {"parts", parts},
                       {"lines", lines},
                       {"file", fs::path(path).filename().string()},
                       {"bytes", bytes.size()},
                       {"fnv1a64", fmt::format("{:016x}", Fnv1a64(bytes))},
                       {"key", key}};
  return WriteFileAtomically(RecordPath(dir, part), record.dump(2) + "\n");
}

absl::Status WriteManifest(const std::string& dir, const std::string& key) {
  json manifest;
  manifest["job"] = json::parse(key, nullptr, false);
  manifest["parts"] = json::array();
  int64_t parts = 0, lines = 0;
  for (auto& [part, record] : ReadRecords(dir)) {
    if (OptionalString(record, "key") != key) continue;
    parts = OptionalInt(record, "parts", int64_t{0});
    lines += OptionalInt(record, "lines", int64_t{0});
    record.erase("key");
    manifest["parts"].push_back(std::move(record));
  }
  manifest["parts_expected"] = parts;
  manifest["lines"] = lines;
  manifest["complete"] = parts > 0 && static_cast<int64_t>(manifest["parts"].size()) == parts;
  return WriteFileAtomically((fs::path(dir) / "manifest.json").string(), manifest.dump(2) + "\n");
}

namespace {

// Every part of the job in `dir` (the first record's), checked complete; their files' bytes in part order.
absl::StatusOr<std::vector<std::string>> ReadAllParts(const std::string& dir) {
  std::map<int64_t, json> records = ReadRecords(dir);
  if (records.empty()) return absl::NotFoundError(fmt::format("'{}' holds no part records (part-*.json)", dir));
  const json& first = records.begin()->second;
  const int64_t parts = OptionalInt(first, "parts", int64_t{0});
  const std::string key = OptionalString(first, "key");
  if (parts <= 0 || parts > 1000000) return absl::InvalidArgumentError(fmt::format("'{}': bad part count", dir));
  std::vector<std::string> bytes(static_cast<size_t>(parts));
  for (int64_t part = 0; part < parts; ++part) {
    if (!PartIsComplete(dir, part, parts, key)) {
      return absl::FailedPreconditionError(fmt::format(
          "part {} of {} in '{}' is missing, damaged or of another job; re-run that part (the command of the "
          "others, with --shard {}/{})",
          part, parts, dir, part, parts));
    }
    TOKVEC_ASSIGN_OR_RETURN(bytes[part], ReadFile((fs::path(dir) / OptionalString(records[part], "file")).string()));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::string> GatherLineParts(const std::string& dir) {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string> bytes, ReadAllParts(dir));
  const int64_t parts = static_cast<int64_t>(bytes.size());
  std::vector<std::vector<std::string_view>> lines(bytes.size());
  int64_t total = 0;
  for (int64_t part = 0; part < parts; ++part) {
    std::string_view text = bytes[part];
    if (!text.empty() && text.back() != '\n') {
      return absl::InvalidArgumentError(fmt::format("part {} does not end with a line end", part));
    }
    for (size_t at = 0; at < text.size();) {
      const size_t end = text.find('\n', at) + 1;
      lines[part].push_back(text.substr(at, end - at));
      at = end;
    }
    total += static_cast<int64_t>(lines[part].size());
  }
  for (int64_t part = 0; part < parts; ++part) {
    if (static_cast<int64_t>(lines[part].size()) != (total - part + parts - 1) / parts) {
      return absl::InvalidArgumentError(fmt::format("part {} has {} lines; {} parts of {} lines give it {}", part,
                                                    lines[part].size(), parts, total,
                                                    (total - part + parts - 1) / parts));
    }
  }
  std::string out;
  for (int64_t n = 0; n < total; ++n) out += lines[n % parts][n / parts];
  return out;
}

absl::Status FinishPart(const std::string& dir, const std::string& key, const World& world) {
  if (world.size > 1 && !AllOk(world, true)) return absl::AbortedError("another rank failed");
  if (world.size > 1 && world.rank != 0) return absl::OkStatus();
  return WriteManifest(dir, key);
}

absl::StatusOr<std::string> GatherNpyParts(const std::string& dir) {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string> bytes, ReadAllParts(dir));
  const int64_t parts = static_cast<int64_t>(bytes.size());
  // Take row n from part n mod P.
  std::vector<NpyMatrixView> views(static_cast<size_t>(parts));
  int64_t rows = 0, cols = -1;
  for (int64_t part = 0; part < parts; ++part) {
    TOKVEC_ASSIGN_OR_RETURN(views[part], ParseNpyFloat32Matrix(bytes[part]));
    if (cols >= 0 && views[part].cols != cols) {
      return absl::InvalidArgumentError(fmt::format("part {} has {} columns, part 0 {}", part, views[part].cols, cols));
    }
    cols = views[part].cols;
    rows += views[part].rows;
  }
  for (int64_t part = 0; part < parts; ++part) {  // part p holds ceil((rows - p) / P) rows
    if (views[part].rows != (rows - part + parts - 1) / parts) {
      return absl::InvalidArgumentError(fmt::format("part {} has {} rows; {} parts of {} lines give it {}", part,
                                                    views[part].rows, parts, rows, (rows - part + parts - 1) / parts));
    }
  }
  std::vector<float> all(static_cast<size_t>(rows * cols));
  for (int64_t n = 0; n < rows; ++n) {
    const int64_t part = n % parts, row = n / parts;
    std::memcpy(all.data() + n * cols, bytes[part].data() + views[part].data_offset + row * cols * sizeof(float),
                static_cast<size_t>(cols) * sizeof(float));
  }
  return NpyFloat32(all.data(), {rows, cols});
}

}  // namespace tokvec::distributed
