// The count records ranks exchange (distributed/count_exchange.h): partitioned by a hash every rank computes alike,
// parsed back into the same sums however the bytes were cut, and refused when truncated or past 2^64 - 1.
#include "distributed/count_exchange.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec::distributed {
namespace {

TEST(CountExchangeTest, PartitionsParseBackToTheSums) {
  const std::vector<WordCount> counts = {{" the", 5}, {std::string("\0\xFF", 2), 18446744073709551615ULL},
                                         {"日本", 7}, {"", 1}, {"x", 4294967296ULL}};
  for (uint32_t parts : {1u, 2u, 3u, 7u}) {
    const std::vector<std::string> out = PartitionByPiece(counts, parts);
    ASSERT_EQ(out.size(), parts);
    absl::flat_hash_map<std::string, uint64_t> sums;
    for (uint32_t r = 0; r < parts; ++r) {
      ASSERT_TRUE(ParseCountRecords(out[r], &sums).ok());
      absl::flat_hash_map<std::string, uint64_t> mine;
      ASSERT_TRUE(ParseCountRecords(out[r], &mine).ok());
      for (const auto& [piece, count] : mine) EXPECT_EQ(OwnerOf(piece, parts), r) << piece;
    }
    ASSERT_EQ(sums.size(), counts.size());
    for (const WordCount& c : counts) EXPECT_EQ(sums[c.word], c.count);
  }
  // The owner is a pure function of the bytes (FNV-1a), the same in every process.
  EXPECT_EQ(OwnerOf("a", 1000), OwnerOf(std::string("a"), 1000));
  EXPECT_EQ(OwnerOf("", 7), 0xcbf29ce484222325ULL % 7);
}

TEST(CountExchangeTest, CountsOfOnePieceAddUpAndOverflowIsRefused) {
  std::string bytes;
  AppendCountRecord("ab", 3, &bytes);
  AppendCountRecord("ab", 4, &bytes);
  absl::flat_hash_map<std::string, uint64_t> sums;
  ASSERT_TRUE(ParseCountRecords(bytes, &sums).ok());
  EXPECT_EQ(sums["ab"], 7u);
  std::string big;
  AppendCountRecord("ab", 18446744073709551615ULL, &big);
  EXPECT_EQ(ParseCountRecords(big, &sums).code(), absl::StatusCode::kOutOfRange);
}

TEST(CountExchangeTest, TruncatedRecordsAreDataLoss) {
  std::string bytes;
  AppendCountRecord("piece", 9, &bytes);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    absl::flat_hash_map<std::string, uint64_t> sums;
    EXPECT_EQ(ParseCountRecords(std::string_view(bytes).substr(0, cut), &sums).code(),
              absl::StatusCode::kDataLoss)
        << cut;
  }
}

// Summing by views into the received bytes (what the ranks do) gives the sums of the copying parse, across parts,
// and the same errors.
TEST(CountExchangeTest, SummingByViewsEqualsSummingByCopies) {
  const std::vector<WordCount> counts = {{" the", 5}, {"日本", 7}, {"", 1}, {"x", 4294967296ULL}, {" the", 2}};
  const std::vector<std::string> out = PartitionByPiece(counts, 3);
  absl::flat_hash_map<std::string, uint64_t> copies;
  absl::flat_hash_map<std::string_view, uint64_t> views;
  for (const std::string& part : out) {
    ASSERT_TRUE(ParseCountRecords(part, &copies).ok());
    ASSERT_TRUE(ParseCountRecords(part, &views).ok());
  }
  ASSERT_EQ(views.size(), copies.size());
  for (const auto& [piece, count] : copies) EXPECT_EQ(views.at(piece), count) << piece;
  EXPECT_EQ(views.at(" the"), 7u);
  std::string big;
  AppendCountRecord("y", 18446744073709551615ULL, &big);
  AppendCountRecord("y", 1, &big);
  absl::flat_hash_map<std::string_view, uint64_t> overflow;
  EXPECT_EQ(ParseCountRecords(big, &overflow).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ParseCountRecords(std::string_view(big).substr(0, 7), &overflow).code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace tokvec::distributed
