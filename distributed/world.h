// The processes of one `tokvec` job: MPI_COMM_WORLD when launched by mpirun / mpiexec / srun (and tokvec was
// built with -DTOKVEC_MPI=ON), else a world of one process. `mpirun -np P tokvec train ...` uses it so that
// each rank counts its share of the corpus, the counts meet by piece hash (MPI_Alltoallv) and are summed there,
// and the ranks then learn the merges together, each on the pieces it summed (bpe_trainer.h: rank 0 sums the pair
// counts and picks each merge, every rank merges in its own words), and rank 0 writes the model: the same bytes as
// one process.
//
//   World world = JoinWorld();                                    // rank 0 of 1 without mpirun
//   ...count this rank's share...
//   if (!AllOk(status.ok())) ...                                  // every rank learns that one failed
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> mine, SumCountsByOwner(std::move(local), world, &stats));
//   std::unique_ptr<MergeExchange> exchange = MakeMergeExchange(world);   // BpeTrainerOptions::exchange
//
// Messages are cut into rounds of at most ChunkBytes() per peer, so no MPI count passes INT_MAX whatever the
// corpus (TOKVEC_MPI_CHUNK_BYTES overrides the size, for tests of the rounds).
#ifndef TOKVEC_DISTRIBUTED_WORLD_H_
#define TOKVEC_DISTRIBUTED_WORLD_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec::distributed {

struct World {
  int rank = 0;
  int size = 1;
};

// Whether this tokvec can join an MPI job (built with -DTOKVEC_MPI=ON).
bool BuiltWithMpi();
// Joins the job when the environment says mpirun (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK) started this
// process; once per process (later calls return the same world). Finalized at exit.
World JoinWorld();

// How many processes the launcher says this job has: OMPI_COMM_WORLD_SIZE (Open MPI's mpirun) or PMI_SIZE (MPICH's
// mpiexec, srun); 1 when neither is set or readable.
int LauncherWorldSize();

// OK, unless this tokvec was built without MPI and a launcher started it as one of several processes: each copy
// would then run the whole job and race to write the same output. The error names the fix (rebuild with MPI, or
// run one process without mpirun). The CLI checks it before any subcommand runs.
absl::Status CheckLauncher();

// Collective: true when `ok` is true on every rank.
bool AllOk(const World& world, bool ok);

struct ExchangeStats {
  uint64_t bytes_sent = 0;      // by this rank
  uint64_t pieces_summed = 0;   // unique pieces this rank summed
  int rounds = 0;               // rounds of the all-to-all step
};

// Collective: every rank's `local` counts, summed by piece on the piece's owner (count_exchange.h OwnerOf); each
// rank gets the pieces it owns, every piece once over all ranks (in no particular order).
absl::StatusOr<std::vector<WordCount>> SumCountsByOwner(std::vector<WordCount> local, const World& world,
                                                        ExchangeStats* stats);

// Collective: every rank's `local` counts summed by piece (spread over the ranks as SumCountsByOwner does), then
// all of them on rank 0; the other ranks get none. For trainers that learn on one machine after a spread count
// (`mpirun tokvec train --type unigram` / `spbpe`). `stats` counts both steps.
absl::StatusOr<std::vector<WordCount>> SumCountsOnRoot(std::vector<WordCount> local, const World& world,
                                                       ExchangeStats* stats);

// What a rank's merge exchange did, for its line on stderr.
struct MergeExchangeStats {
  uint64_t merges_together = 0;  // merges learned by every rank
  bool handed_over = false;      // the others' words went to rank 0, which learned the rest alone
  uint64_t bytes_sent = 0;       // by this rank
  double seconds = 0;            // in the exchange's calls (waiting for the others included)
};

// The collective steps of a BPE training spread over the ranks of `world` (rank 0 is the root), counting into
// `stats` (which must outlive it); null for a world of one process.
std::unique_ptr<MergeExchange> MakeMergeExchange(const World& world, MergeExchangeStats* stats);

}  // namespace tokvec::distributed

#endif  // TOKVEC_DISTRIBUTED_WORLD_H_
