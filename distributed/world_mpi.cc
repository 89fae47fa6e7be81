// distributed/world.h over MPI (-DTOKVEC_MPI=ON).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/status_macros.h"
#include "distributed/count_exchange.h"
#include "distributed/world.h"
#include "fmt/format.h"

namespace tokvec::distributed {
namespace {

bool LaunchedByMpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

// Open MPI's transport when every rank runs on this node and the user chose none (OMPI_MCA_pml unset): ob1 over
// shared memory. Debian's Open MPI otherwise probes UCX first, which costs about 0.2 s of MPI_Init on every run
// (measured: 0.35 s -> 0.14 s for `mpirun -np 2 tokvec train` on a tiny file) and carries nothing shared memory
// does not. Across nodes the default stands. Set before MPI_Init, which reads OMPI_MCA_* from the environment.
void PreferSharedMemoryOnOneNode() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* local_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (size == nullptr || local_size == nullptr || std::string(size) != local_size) return;
  if (std::getenv("OMPI_MCA_pml") == nullptr) setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
}

void Finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// Bytes per peer per round: the override, or what keeps every count and displacement below INT_MAX.
uint64_t ChunkBytes(int size) {
  uint64_t chunk = std::min<uint64_t>(uint64_t{1} << 30, static_cast<uint64_t>(INT_MAX) / std::max(size, 1));
  if (const char* env = std::getenv("TOKVEC_MPI_CHUNK_BYTES")) {
    const long long value = std::atoll(env);
    if (value > 0) chunk = std::min<uint64_t>(chunk, static_cast<uint64_t>(value));
  }
  return std::max<uint64_t>(chunk, 1);
}

absl::Status MpiError(int code, const char* what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::InternalError(fmt::format("{} failed: {}", what, std::string(text, static_cast<size_t>(length))));
}

#define TOKVEC_MPI_CALL(call)                                       \
  do {                                                              \
    const int tokvec_mpi_code = (call);                             \
    if (tokvec_mpi_code != MPI_SUCCESS) return MpiError(tokvec_mpi_code, #call); \
  } while (0)

uint64_t MaxOverRanks(uint64_t value) {
  uint64_t max = 0;
  MPI_Allreduce(&value, &max, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

// All-to-all of one buffer per peer, in rounds of at most `chunk` bytes per peer; received[r] gets rank r's
// buffer for this rank.
absl::Status AllToAll(const std::vector<std::string>& send, uint64_t chunk, std::vector<std::string>* received,
                      ExchangeStats* stats) {
  const int size = static_cast<int>(send.size());
  uint64_t longest = 0;
  for (const std::string& s : send) longest = std::max<uint64_t>(longest, s.size());
  const uint64_t rounds = (MaxOverRanks(longest) + chunk - 1) / chunk;
  received->assign(static_cast<size_t>(size), std::string());
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  std::string send_buffer, recv_buffer;
  for (uint64_t round = 0; round < rounds; ++round) {
    send_buffer.clear();
    for (int r = 0; r < size; ++r) {
      const uint64_t begin = std::min<uint64_t>(send[r].size(), round * chunk);
      const uint64_t end = std::min<uint64_t>(send[r].size(), begin + chunk);
      send_displs[r] = static_cast<int>(send_buffer.size());
      send_counts[r] = static_cast<int>(end - begin);
      send_buffer.append(send[r], begin, end - begin);
    }
    TOKVEC_MPI_CALL(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD));
    int total = 0;
    for (int r = 0; r < size; ++r) {
      recv_displs[r] = total;
      total += recv_counts[r];
    }
    recv_buffer.resize(static_cast<size_t>(total));
    TOKVEC_MPI_CALL(MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_CHAR,
                                  recv_buffer.data(), recv_counts.data(), recv_displs.data(), MPI_CHAR,
                                  MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) (*received)[r].append(recv_buffer, recv_displs[r], recv_counts[r]);
    stats->bytes_sent += send_buffer.size();
    ++stats->rounds;
  }
  return absl::OkStatus();
}

// Gathers every rank's `send` on rank 0 (in rounds of at most `chunk` bytes per rank): (*gathered)[r] is rank
// r's buffer there.
absl::Status GatherOnRoot(const std::string& send, uint64_t chunk, const World& world,
                          std::vector<std::string>* gathered, ExchangeStats* stats) {
  gathered->assign(world.rank == 0 ? static_cast<size_t>(world.size) : 0, std::string());
  const uint64_t rounds = (MaxOverRanks(send.size()) + chunk - 1) / chunk;
  std::vector<int> counts(world.size), displs(world.size);
  std::string buffer;
  for (uint64_t round = 0; round < rounds; ++round) {
    const uint64_t begin = std::min<uint64_t>(send.size(), round * chunk);
    const int count = static_cast<int>(std::min<uint64_t>(send.size(), begin + chunk) - begin);
    TOKVEC_MPI_CALL(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
    int total = 0;
    if (world.rank == 0) {
      for (int r = 0; r < world.size; ++r) {
        displs[r] = total;
        total += counts[r];
      }
      buffer.resize(static_cast<size_t>(total));
    }
    TOKVEC_MPI_CALL(MPI_Gatherv(send.data() + begin, count, MPI_CHAR, buffer.data(), counts.data(), displs.data(),
                                MPI_CHAR, 0, MPI_COMM_WORLD));
    if (world.rank == 0) {  // records may straddle rounds: parsed once complete
      for (int r = 0; r < world.size; ++r) (*gathered)[r].append(buffer, displs[r], counts[r]);
    }
    stats->bytes_sent += static_cast<uint64_t>(count);
  }
  return absl::OkStatus();
}

}  // namespace

bool BuiltWithMpi() { return true; }

absl::Status CheckLauncher() { return absl::OkStatus(); }

World JoinWorld() {
  static const World world = [] {
    World w;
    if (!LaunchedByMpirun()) return w;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      PreferSharedMemoryOnOneNode();
      MPI_Init(nullptr, nullptr);
      std::atexit(Finalize);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    return w;
  }();
  return world;
}

bool AllOk(const World& world, bool ok) {
  if (world.size <= 1) return ok;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

absl::StatusOr<std::vector<WordCount>> SumCountsByOwner(std::vector<WordCount> local, const World& world,
                                                        ExchangeStats* stats) {
  ExchangeStats ignored;
  if (stats == nullptr) stats = &ignored;
  if (world.size <= 1) {
    stats->pieces_summed = local.size();
    return local;
  }
  const uint64_t chunk = ChunkBytes(world.size);
  // Each piece to its owner (by hash), where its counts from every rank are summed.
  std::vector<std::string> send = PartitionByPiece(local, static_cast<uint32_t>(world.size));
  std::vector<WordCount>().swap(local);
  std::vector<std::string> received;
  TOKVEC_RETURN_IF_ERROR(AllToAll(send, chunk, &received, stats));
  std::vector<std::string>().swap(send);
  // Summed by views into the received buffers (no piece copied); a record takes 12 bytes and its piece.
  absl::flat_hash_map<std::string_view, uint64_t> sums;
  uint64_t received_bytes = 0;
  for (const std::string& part : received) received_bytes += part.size();
  sums.reserve(static_cast<size_t>(received_bytes / 24));
  absl::Status parsed = absl::OkStatus();
  for (const std::string& part : received) {
    if (parsed.ok()) parsed = ParseCountRecords(part, &sums);
  }
  if (!AllOk(world, parsed.ok())) {
    return parsed.ok() ? absl::AbortedError("another rank could not read the exchanged counts") : parsed;
  }
  stats->pieces_summed = sums.size();
  std::vector<WordCount> mine;
  mine.reserve(sums.size());
  for (const auto& [piece, count] : sums) mine.push_back({std::string(piece), count});
  return mine;
}

absl::StatusOr<std::vector<WordCount>> SumCountsOnRoot(std::vector<WordCount> local, const World& world,
                                                       ExchangeStats* stats) {
  ExchangeStats ignored;
  if (stats == nullptr) stats = &ignored;
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> mine, SumCountsByOwner(std::move(local), world, stats));
  if (world.size <= 1) return mine;
  // Each rank's sums are for pieces no other rank has: rank 0 takes them as they come.
  std::string records = std::move(PartitionByPiece(mine, 1)[0]);
  std::vector<WordCount>().swap(mine);
  std::vector<std::string> gathered;
  TOKVEC_RETURN_IF_ERROR(GatherOnRoot(records, ChunkBytes(world.size), world, &gathered, stats));
  absl::Status parsed = absl::OkStatus();
  absl::flat_hash_map<std::string, uint64_t> all;
  for (const std::string& part : gathered) {
    if (parsed.ok()) parsed = ParseCountRecords(part, &all);
  }
  if (!AllOk(world, parsed.ok())) {
    return parsed.ok() ? absl::AbortedError("rank 0 could not read the gathered counts") : parsed;
  }
  std::vector<WordCount> out;
  out.reserve(all.size());
  for (auto& [piece, count] : all) out.push_back({piece, count});
  return out;
}

namespace {

// BpeTrainerOptions::exchange over MPI_COMM_WORLD; rank 0 is the root.
class MpiMergeExchange final : public MergeExchange {
 public:
  MpiMergeExchange(const World& world, MergeExchangeStats* stats)
      : world_(world), chunk_(ChunkBytes(world.size)), stats_(stats) {}

  bool IsRoot() const override { return world_.rank == 0; }

  bool AllOk(bool ok) override { return distributed::AllOk(world_, ok); }

  absl::StatusOr<std::vector<std::string>> UnionOfSymbols(const std::vector<std::string>& symbols) override {
    std::vector<WordCount> mine;  // the count-record format, count unused
    mine.reserve(symbols.size());
    for (const std::string& symbol : symbols) mine.push_back({symbol, 1});
    // Every rank's symbols to every rank: the same buffer to each peer.
    const std::string records = PartitionByPiece(mine, 1)[0];
    std::vector<std::string> received;
    ExchangeStats ignored;
    TOKVEC_RETURN_IF_ERROR(AllToAll(std::vector<std::string>(static_cast<size_t>(world_.size), records), chunk_,
                                    &received, &ignored));
    absl::flat_hash_map<std::string, uint64_t> all;
    for (const std::string& part : received) TOKVEC_RETURN_IF_ERROR(ParseCountRecords(part, &all));
    std::vector<std::string> out;
    out.reserve(all.size());
    for (auto& [symbol, count] : all) out.push_back(symbol);
    std::sort(out.begin(), out.end());
    return out;
  }

  absl::StatusOr<std::vector<std::string>> GatherOnRoot(const std::string& mine) override {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> gathered;
    ExchangeStats ignored;
    TOKVEC_RETURN_IF_ERROR(distributed::GatherOnRoot(mine, chunk_, world_, &gathered, &ignored));
    stats_->bytes_sent += mine.size();
    stats_->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return gathered;
  }

  absl::StatusOr<MergeStep> BroadcastStep(MergeStep step) override {
    const auto start = std::chrono::steady_clock::now();
    uint64_t message[2] = {static_cast<uint64_t>(step.kind), step.pair};
    TOKVEC_MPI_CALL(MPI_Bcast(message, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD));
    stats_->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (message[0] > MergeStep::kHandOver) return absl::DataLossError("rank 0 sent an unknown training step");
    step = {static_cast<MergeStep::Kind>(message[0]), message[1]};
    if (step.kind == MergeStep::kMerge) ++stats_->merges_together;
    if (step.kind == MergeStep::kHandOver) stats_->handed_over = true;
    return step;
  }

 private:
  World world_;
  uint64_t chunk_;
  MergeExchangeStats* stats_;
};

}  // namespace

std::unique_ptr<MergeExchange> MakeMergeExchange(const World& world, MergeExchangeStats* stats) {
  if (world.size <= 1) return nullptr;
  return std::make_unique<MpiMergeExchange>(world, stats);
}

}  // namespace tokvec::distributed
