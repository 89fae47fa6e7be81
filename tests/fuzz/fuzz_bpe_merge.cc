// Fuzz target: BpeModel::Merge (pair array for short pieces, heap for long ones) must give exactly what the naive
// MergeReference gives, for both merge rules, on models and pieces built from the fuzz input.
//
//   build-fuzz/fuzz_bpe_merge tests/fuzz/corpus/bpe_merge -max_total_time=30
//
// Input layout (FuzzedDataProvider): rule bit, byte-level bit, alphabet size, merge count, merges as (left,
// right) picks among the alphabet and the tokens made so far, then the piece as symbols of the alphabet (up to
// 400). Pieces up to 24 symbols shift a pair array (MergeShort), up to 256 link one (MergeShortLinked), longer
// ones take the heap path. Byte-level ranks models hold the 256 single bytes at ids 0-255 (the alphabet first),
// as tiktoken's files do, so pairs of two of them come from the dense byte-pair table.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {
namespace {

void CheckSame(const BpeModel& model, std::vector<BpeModel::Symbol> symbols) {
  std::vector<BpeModel::Symbol> reference = symbols;
  std::string before;
  for (const BpeModel::Symbol& s : symbols) before += model.token(s.id);
  model.Merge(symbols);
  model.MergeReference(reference);
  FUZZ_CHECK(symbols.size() == reference.size());
  std::string after;
  for (size_t i = 0; i < symbols.size(); ++i) {
    FUZZ_CHECK(symbols[i].id == reference[i].id);
    FUZZ_CHECK(symbols[i].begin == reference[i].begin);
    after += model.token(symbols[i].id);
  }
  FUZZ_CHECK(before == after);  // Merging never changes the bytes.
}

}  // namespace
}  // namespace tokvec

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  FuzzedDataProvider fdp(data, size);
  const bool ranks = fdp.ConsumeBool();
  const bool byte_level = fdp.ConsumeBool() && ranks;
  const int alphabet = fdp.ConsumeIntegralInRange<int>(1, 6);
  const int n_merges = fdp.ConsumeIntegralInRange<int>(0, 40);
  std::vector<std::string> tokens;
  for (int i = 0; i < alphabet; ++i) tokens.push_back(std::string(1, static_cast<char>('a' + i)));
  if (byte_level) {
    for (int b = 0; b < 256; ++b) {
      if (b < 'a' || b >= 'a' + alphabet) tokens.push_back(std::string(1, static_cast<char>(b)));
    }
  }
  const auto first_made = static_cast<TokenId>(tokens.size());  // made tokens start here
  // A pick among the alphabet and the made tokens (not the other single bytes).
  auto pick = [&] {
    const auto p = fdp.ConsumeIntegralInRange<TokenId>(0, alphabet + (tokens.size() - first_made) - 1);
    return p < static_cast<TokenId>(alphabet) ? p : first_made + (p - alphabet);
  };
  std::vector<BpeModel::MergePair> merges;
  for (int i = 0; i < n_merges; ++i) {
    TokenId left = pick();
    TokenId right = pick();
    std::string joined = tokens[left] + tokens[right];
    bool known = false;
    for (const std::string& t : tokens) known = known || t == joined;
    if (!known) tokens.push_back(joined);
    merges.push_back({left, right});
  }
  absl::StatusOr<BpeModel> model = ranks ? BpeModel::FromRanks(tokens) : BpeModel::FromMerges(tokens, merges);
  FUZZ_CHECK(model.ok());
  std::vector<BpeModel::Symbol> symbols;
  size_t begin = 0;
  while (fdp.remaining_bytes() > 0 && symbols.size() < 400) {
    TokenId id = fdp.ConsumeIntegralInRange<TokenId>(0, alphabet - 1);
    symbols.push_back({id, begin});
    begin += 1;
  }
  CheckSame(*model, symbols);
  return 0;
}
