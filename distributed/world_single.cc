// distributed/world.h without MPI (-DTOKVEC_MPI=OFF): every process is a world of one.
#include "distributed/world.h"

#include "fmt/format.h"

namespace tokvec::distributed {

bool BuiltWithMpi() { return false; }

absl::Status CheckLauncher() {
  const int size = LauncherWorldSize();
  if (size <= 1) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "this tokvec was built without MPI, but a launcher (mpirun/mpiexec/srun) started it as one of {} processes: "
      "each would run the whole job and write the same output. Rebuild with MPI (install libopenmpi-dev, then "
      "cmake -B build -DTOKVEC_MPI=ON && cmake --build build), or run a single tokvec without mpirun",
      size));
}

World JoinWorld() { return World{}; }

bool AllOk(const World&, bool ok) { return ok; }

absl::StatusOr<std::vector<WordCount>> SumCountsByOwner(std::vector<WordCount> local, const World&,
                                                        ExchangeStats* stats) {
  if (stats != nullptr) stats->pieces_summed = local.size();
  return local;
}

absl::StatusOr<std::vector<WordCount>> SumCountsOnRoot(std::vector<WordCount> local, const World&,
                                                       ExchangeStats* stats) {
  if (stats != nullptr) stats->pieces_summed = local.size();
  return local;
}

std::unique_ptr<MergeExchange> MakeMergeExchange(const World&, MergeExchangeStats*) { return nullptr; }

}  // namespace tokvec::distributed
