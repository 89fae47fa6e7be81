// `--shard i/P` of `tokvec count` and `tokvec embed`: share i of P (0 <= i < P) of a job.
#ifndef TOKVEC_CLI_SHARD_OPTION_H_
#define TOKVEC_CLI_SHARD_OPTION_H_

#include <cstdint>
#include <string>

#include <optional>

#include "absl/status/statusor.h"
#include "distributed/world.h"

namespace tokvec::cli {

struct Shard {
  int64_t index = 0;
  int64_t count = 1;
};

// "i/P" with 0 <= i < P and P >= 1 (at most 9 digits each); else a usage error naming the value.
absl::StatusOr<Shard> ParseShard(const std::string& text);

// The share of this run: --shard's (when given), else the MPI rank and size under mpirun, else none (one process
// does everything).
absl::StatusOr<std::optional<Shard>> ShardOfRun(const std::string& shard_option, const distributed::World& world);

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_SHARD_OPTION_H_
