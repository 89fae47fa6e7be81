// distributed/world.h without MPI (-DTOKVEC_MPI=OFF): every process is a world of one.
#include "distributed/world.h"

namespace tokvec::distributed {

bool BuiltWithMpi() { return false; }

World JoinWorld() { return World{}; }

bool AllOk(const World&, bool ok) { return ok; }

absl::StatusOr<std::vector<WordCount>> SumCountsOnRoot(std::vector<WordCount> local, const World&,
                                                       ExchangeStats* stats) {
  if (stats != nullptr) stats->pieces_summed = local.size();
  return local;
}

}  // namespace tokvec::distributed
