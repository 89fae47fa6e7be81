#include "tokenizer/models/bpe/recover_merges.h"

#include <cstddef>
#include <string>

namespace tokvec {

ByteIds ByteIdsOf(const BpeModel& bpe) {
  ByteIds ids;
  for (int b = 0; b < 256; ++b) ids[b] = bpe.Find(std::string(1, static_cast<char>(b)));
  return ids;
}

std::optional<BpeModel::MergePair> RecoverMerge(const BpeModel& bpe, TokenId id, const ByteIds& byte_ids) {
  // 1. The token's bytes as byte tokens.
  const std::string& token = bpe.token(id);
  std::vector<TokenId> parts;
  for (unsigned char c : token) {
    if (!byte_ids[c]) return std::nullopt;
    parts.push_back(*byte_ids[c]);
  }
  // 2. Merge the lowest-ranked adjacent pair (the leftmost on a tie) among the ranks below `id`, until two
  //    parts are left or none merges.
  while (parts.size() > 2) {
    size_t best = 0;
    std::optional<BpeModel::MergeResult> best_result;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      std::optional<BpeModel::MergeResult> result = bpe.Lookup(parts[i], parts[i + 1]);
      if (result && result->priority < id && (!best_result || result->priority < best_result->priority)) {
        best = i;
        best_result = result;
      }
    }
    if (!best_result) return std::nullopt;
    parts[best] = best_result->id;
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  // 3. Those two are the merge that made `id`.
  if (parts.size() != 2) return std::nullopt;
  return BpeModel::MergePair{parts[0], parts[1]};
}

std::vector<BpeModel::MergePair> RecoverMerges(const BpeModel& bpe) {
  const ByteIds byte_ids = ByteIdsOf(bpe);
  std::vector<BpeModel::MergePair> merges;
  for (TokenId id = 0; id < bpe.size(); ++id) {
    if (bpe.token(id).size() < 2) continue;
    if (std::optional<BpeModel::MergePair> pair = RecoverMerge(bpe, id, byte_ids)) merges.push_back(*pair);
  }
  return merges;
}

}  // namespace tokvec
