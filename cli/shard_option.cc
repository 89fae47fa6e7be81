#include "cli/shard_option.h"

#include <string_view>

#include "cli/command.h"
#include "fmt/format.h"

namespace tokvec::cli {

absl::StatusOr<Shard> ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (slash == std::string::npos || !digits(std::string_view(text).substr(0, slash)) ||
      !digits(std::string_view(text).substr(slash + 1))) {
    return absl::InvalidArgumentError(fmt::format("{}--shard takes i/P (e.g. 0/4), not '{}'", kUsagePrefix, text));
  }
  const Shard shard{.index = std::stoll(text.substr(0, slash)), .count = std::stoll(text.substr(slash + 1))};
  if (shard.count == 0 || shard.index >= shard.count) {
    return absl::InvalidArgumentError(
        fmt::format("{}--shard {}: i must be in 0..P-1 and P at least 1", kUsagePrefix, text));
  }
  return shard;
}

absl::StatusOr<std::optional<Shard>> ShardOfRun(const std::string& shard_option, const distributed::World& world) {
  if (!shard_option.empty()) {
    absl::StatusOr<Shard> shard = ParseShard(shard_option);
    if (!shard.ok()) return shard.status();
    return std::optional<Shard>(*shard);
  }
  if (world.size > 1) return std::optional<Shard>(Shard{.index = world.rank, .count = world.size});
  return std::optional<Shard>();
}

}  // namespace tokvec::cli
