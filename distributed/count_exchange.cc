#include "distributed/count_exchange.h"

#include <cstring>
#include <limits>

#include "fmt/format.h"

namespace tokvec::distributed {

uint32_t OwnerOf(std::string_view piece, uint32_t parts) {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
  for (unsigned char byte : piece) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;  // FNV prime
  }
  return static_cast<uint32_t>(hash % parts);
}

void AppendCountRecord(std::string_view piece, uint64_t count, std::string* out) {
  const uint32_t length = static_cast<uint32_t>(piece.size());
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
  out->append(piece);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((count >> (8 * i)) & 0xFF));
}

std::vector<std::string> PartitionByPiece(const std::vector<WordCount>& counts, uint32_t parts) {
  std::vector<std::string> out(parts);
  for (const WordCount& piece : counts) AppendCountRecord(piece.word, piece.count, &out[OwnerOf(piece.word, parts)]);
  return out;
}

namespace {

// Calls visit(piece, count) for each record of `bytes` in order; DataLoss on a record cut short, else visit's
// first error.
template <typename Visit>
absl::Status ForEachCountRecord(std::string_view bytes, Visit visit) {
  size_t at = 0;
  const auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])); };
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) return absl::DataLossError("a count record is cut short (its length)");
    uint64_t length = 0;
    for (int i = 0; i < 4; ++i) length |= byte(at + i) << (8 * i);
    at += 4;
    if (bytes.size() - at < length + 8) return absl::DataLossError("a count record is cut short (its piece)");
    const std::string_view piece = bytes.substr(at, length);
    at += length;
    uint64_t count = 0;
    for (int i = 0; i < 8; ++i) count |= byte(at + i) << (8 * i);
    at += 8;
    absl::Status visited = visit(piece, count);
    if (!visited.ok()) return visited;
  }
  return absl::OkStatus();
}

template <typename Key>
absl::Status SumCountRecords(std::string_view bytes, absl::flat_hash_map<Key, uint64_t>* sums) {
  return ForEachCountRecord(bytes, [&](std::string_view piece, uint64_t count) {
    uint64_t& total = (*sums)[Key(piece)];
    if (total > std::numeric_limits<uint64_t>::max() - count) {
      return absl::OutOfRangeError("a piece's counts add up past 2^64 - 1");
    }
    total += count;
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status ParseCountRecords(std::string_view bytes, absl::flat_hash_map<std::string, uint64_t>* sums) {
  return SumCountRecords(bytes, sums);
}

absl::Status ParseCountRecords(std::string_view bytes, absl::flat_hash_map<std::string_view, uint64_t>* sums) {
  return SumCountRecords(bytes, sums);
}

}  // namespace tokvec::distributed
