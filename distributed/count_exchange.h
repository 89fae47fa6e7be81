// The wire format and partitioning of piece counts between the ranks of `mpirun tokvec train`
// (distributed/world.h): each rank's counts are cut by a hash of the piece into one buffer per rank, so every
// piece's counts meet on one rank, where they are summed.
//
//   std::vector<std::string> out = PartitionByPiece(local_counts, /*parts=*/3);   // out[r]: the pieces for rank r
//   TOKVEC_RETURN_IF_ERROR(ParseCountRecords(received, &sums));                    // adds them into `sums`
//
// A record is the piece's length (u32, little endian), its bytes, and its count (u64, little endian).
#ifndef TOKVEC_DISTRIBUTED_COUNT_EXCHANGE_H_
#define TOKVEC_DISTRIBUTED_COUNT_EXCHANGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec::distributed {

// The rank that sums `piece` among `parts` ranks: FNV-1a (64-bit) of its bytes, modulo parts (the same on every
// rank and machine).
uint32_t OwnerOf(std::string_view piece, uint32_t parts);

// Appends one record.
void AppendCountRecord(std::string_view piece, uint64_t count, std::string* out);

// counts cut into `parts` buffers of records by OwnerOf.
std::vector<std::string> PartitionByPiece(const std::vector<WordCount>& counts, uint32_t parts);

// Adds every record of `bytes` into `sums` (DataLoss on a truncated record, OutOfRange on a sum past 2^64 - 1).
absl::Status ParseCountRecords(std::string_view bytes, absl::flat_hash_map<std::string, uint64_t>* sums);
// The same, keyed by views into `bytes` (which must outlive `sums`): no piece is copied, which is most of the
// summing's time when the pieces are many (a word model's million words).
absl::Status ParseCountRecords(std::string_view bytes, absl::flat_hash_map<std::string_view, uint64_t>* sums);

}  // namespace tokvec::distributed

#endif  // TOKVEC_DISTRIBUTED_COUNT_EXCHANGE_H_
