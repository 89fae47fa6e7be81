// Fuzz target: the count-file reader (tokenizer/trainers/count_file.h), then training a few merges from what it read.
// Any bytes give a status or counts that format and parse back to the same counts, and train.
//
//   build-fuzz/fuzz_count_file tests/fuzz/corpus/count_file -max_total_time=30
//
// Input layout: the first byte chooses word (odd) or byte (even) pieces; the rest is the file's text.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/count_file.h"

namespace {

std::vector<std::pair<std::string, uint64_t>> Sorted(const std::vector<tokvec::WordCount>& pieces) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const tokvec::WordCount& p : pieces) out.emplace_back(p.word, p.count);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  if (size == 0) return 0;
  const bool word = (data[0] & 1) != 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  PieceCounts counts;
  const absl::Status status = ParseCountText(text, "fuzz.tsv", word, &counts);
  if (!status.ok()) {
    FUZZ_CHECK(!status.message().empty());
    return 0;
  }
  // What was read formats and parses back to the same counts.
  PieceCounts again;
  FUZZ_CHECK(ParseCountText(FormatCountFile(counts.header, counts.pieces), "again", word, &again).ok());
  FUZZ_CHECK(Sorted(again.pieces) == Sorted(counts.pieces));
  FUZZ_CHECK(again.header == counts.header);
  // And trains (a few merges; counts up to 2^64 - 1).
  BpeTrainerOptions options;
  options.type = word ? ModelType::kWord : ModelType::kByte;
  options.merges = 8;
  absl::StatusOr<TrainedBpe> trained = TrainBpe(std::move(counts.pieces), options);
  if (!trained.ok()) FUZZ_CHECK(!trained.status().message().empty());
  return 0;
}
