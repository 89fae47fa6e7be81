#include "embeddings/safetensors_shards.h"

#include <filesystem>
#include <utility>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

constexpr size_t kMaxShards = 4096;  // more files than any published checkpoint; bounds open file handles

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SafetensorsShards>> SafetensorsShards::Open(const std::string& path) {
  if (EndsWith(path, ".index.json")) {
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    return FromIndex(text, path, std::filesystem::path(path).parent_path().string());
  }
  std::unique_ptr<SafetensorsShards> out(new SafetensorsShards());
  out->path_ = path;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> file, SafetensorsFile::Open(path));
  for (const SafetensorsEntry& entry : file->entries()) out->shard_of_.emplace(entry.name, 0);
  out->shards_.push_back(std::move(file));
  return out;
}

absl::StatusOr<std::unique_ptr<SafetensorsShards>> SafetensorsShards::FromIndex(std::string_view index_text,
                                                                                const std::string& path,
                                                                                const std::string& dir) {
  const nlohmann::json index = nlohmann::json::parse(index_text, nullptr, /*allow_exceptions=*/false);
  if (index.is_discarded() || !index.is_object()) {
    return absl::InvalidArgumentError(fmt::format("safetensors index '{}' is not a JSON object", path));
  }
  auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object() || map->empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "safetensors index '{}': key 'weight_map' must be a non-empty object {{\"tensor name\": \"shard file\"}}",
        path));
  }
  // 1. The shards, in order of first mention; each a plain file name beside the index.
  std::unique_ptr<SafetensorsShards> out(new SafetensorsShards());
  out->path_ = path;
  std::map<std::string, size_t> shard_index;
  std::vector<std::pair<std::string, size_t>> listed;  // (tensor, shard) from the index
  for (const auto& [name, file] : map->items()) {
    if (!file.is_string()) {
      return absl::InvalidArgumentError(fmt::format("safetensors index '{}': weight_map['{}'] must be a file name, not {}",
                                                    path, name, file.dump()));
    }
    const std::string shard = file.get<std::string>();
    if (shard.empty() || shard == "." || shard == ".." || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos) {
      return absl::InvalidArgumentError(fmt::format(
          "safetensors index '{}': weight_map['{}'] is '{}'; a shard must be a file name beside the index", path,
          name, shard));
    }
    auto [it, added] = shard_index.emplace(shard, out->shards_.size());
    if (added) {
      if (out->shards_.size() >= kMaxShards) {
        return absl::InvalidArgumentError(
            fmt::format("safetensors index '{}' names more than {} shards", path, kMaxShards));
      }
      const std::string shard_path = (std::filesystem::path(dir) / shard).string();
      if (!std::filesystem::is_regular_file(shard_path)) {
        return absl::NotFoundError(fmt::format("safetensors index '{}' names shard '{}', which does not exist ({})",
                                               path, shard, shard_path));
      }
      TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> opened, SafetensorsFile::Open(shard_path));
      out->shards_.push_back(std::move(opened));
    }
    listed.emplace_back(name, it->second);
  }
  // 2. Every tensor of every shard, each in one shard only.
  for (size_t s = 0; s < out->shards_.size(); ++s) {
    for (const SafetensorsEntry& entry : out->shards_[s]->entries()) {
      auto [it, added] = out->shard_of_.emplace(entry.name, s);
      if (!added) {
        return absl::InvalidArgumentError(fmt::format(
            "safetensors index '{}': tensor '{}' is in two shards, '{}' and '{}'", path, entry.name,
            out->shards_[it->second]->path(), out->shards_[s]->path()));
      }
    }
  }
  // 3. The index agrees with the shards.
  for (const auto& [name, s] : listed) {
    auto it = out->shard_of_.find(name);
    if (it == out->shard_of_.end() || it->second != s) {
      return absl::InvalidArgumentError(fmt::format(
          "safetensors index '{}' maps tensor '{}' to '{}', which has no such tensor{}", path, name,
          out->shards_[s]->path(),
          it == out->shard_of_.end() ? "" : fmt::format(" (it is in '{}')", out->shards_[it->second]->path())));
    }
  }
  return out;
}

std::vector<std::string> SafetensorsShards::Names() const {
  std::vector<std::string> names;
  names.reserve(shard_of_.size());
  for (const auto& [name, shard] : shard_of_) names.push_back(name);
  return names;
}

const SafetensorsEntry* SafetensorsShards::Find(std::string_view name) const {
  auto it = shard_of_.find(name);
  return it == shard_of_.end() ? nullptr : shards_[it->second]->Find(name);
}

absl::StatusOr<FloatTensor> SafetensorsShards::ReadFloat32(std::string_view name) {
  auto it = shard_of_.find(name);
  if (it == shard_of_.end()) {
    return absl::NotFoundError(fmt::format("'{}' has no tensor '{}'", path_, name));
  }
  return shards_[it->second]->ReadFloat32(name);
}

}  // namespace tokvec
