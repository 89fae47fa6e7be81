// The byte-pair-encoding merge engine shared by every model kind (Sennrich et al. 2016,
// https://arxiv.org/abs/1508.07909; byte-level variant: Radford et al. 2019).
//
// A BpeModel is an immutable vocabulary of tokens (byte strings, id = index) plus a rule that says which two
// adjacent tokens merge and with what priority (lower merges first):
//   - kMergeList: pair (a, b) merges iff it is in the merge list; priority = its position (rank) in the list.
//     This is GPT-2's merges.txt, Hugging Face's tokenizer.json and tokvec's own model files.
//   - kRanks: pair (a, b) merges iff bytes(a) + bytes(b) is a token; priority = that token's id (its rank).
//     This is tiktoken's rule, where the merge rank *is* the token id.
// Either way the merged token is the token spelled bytes(a) + bytes(b).
//
// Merging one piece (Merge): repeatedly merge the adjacent pair with the lowest priority, the leftmost one on a
// tie, until no adjacent pair merges. With merges [(a,a), (aa,b)]: "aab" -> [a a b] -> [aa b] -> [aab], while
// "aaab" -> [a a a b] -> [aa a b] (the leftmost a a merges first) and stops: no (aa, b) pair is adjacent.
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_BPE_MODEL_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_BPE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace tokvec {

using TokenId = uint32_t;

class BpeModel {
 public:
  enum class Rule { kMergeList, kRanks };

  // One learned merge: left and right token ids (merge rank = position in the list).
  struct MergePair {
    TokenId left;
    TokenId right;
  };

  // A symbol of a piece being merged: its token id and the byte offset where it starts in the input.
  struct Symbol {
    TokenId id;
    size_t begin;
  };

  // `tokens[id]` are the bytes of token `id`; an empty string marks an unused id. Every merge's concatenation
  // must itself be a token. Errors name the offending merge (by rank) or duplicate token (by id).
  static absl::StatusOr<BpeModel> FromMerges(std::vector<std::string> tokens, std::vector<MergePair> merges);
  // tiktoken-style ranks: `tokens[rank]` are the bytes of the token with that rank.
  static absl::StatusOr<BpeModel> FromRanks(std::vector<std::string> tokens);
  // FromMerges in two steps, for readers that look tokens up (Find) to make the merges: `ranks` from FromRanks.
  // On an error, `*bad_merge` (when given) is the rank of the merge at fault. `right_skip`: a merge makes
  // bytes(left) + bytes(right) without its first `right_skip` bytes (Hugging Face's continuing_subword_prefix,
  // bpe_affixes.h); a right token shorter than that is an error.
  static absl::StatusOr<BpeModel> WithMerges(BpeModel ranks, std::vector<MergePair> merges,
                                             size_t* bad_merge = nullptr, size_t right_skip = 0);

  BpeModel(BpeModel&&) = default;
  BpeModel& operator=(BpeModel&&) = default;

  Rule rule() const { return rule_; }
  size_t size() const { return tokens_.size(); }
  const std::string& token(TokenId id) const { return tokens_[id]; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  // The merge list in rank order (empty for kRanks models).
  const std::vector<MergePair>& merges() const { return merges_; }
  // The id of the token spelled `bytes`, if any.
  std::optional<TokenId> Find(std::string_view bytes) const;
  // ids[i] = Find(bytes[i]) for every i, faster than one by one on a large vocabulary: the memory of all the
  // lookups is requested before the first one waits for its own (readers resolve 10^5 merges this way).
  void FindMany(const std::string_view* bytes, size_t count, std::optional<TokenId>* ids) const;

  // The priority and result of merging `left` then `right`, or nullopt when they do not merge.
  struct MergeResult {
    uint32_t priority;
    TokenId id;
  };
  static constexpr uint32_t kNoMerge = ~uint32_t{0};
  std::optional<MergeResult> Lookup(TokenId left, TokenId right) const;

  // Merges `symbols` (one piece, in order) in place by the rule above.
  void Merge(std::vector<Symbol>& symbols) const;
  // The same result by the naive O(n²) rescan; the oracle for Merge in tests.
  void MergeReference(std::vector<Symbol>& symbols) const;

 private:
  BpeModel(Rule rule, std::vector<std::string> tokens);
  // Lookup through a per-thread direct-mapped cache of pairs (kRanks lookups hash the joined bytes; the pairs
  // of a text repeat). {kNoMerge, 0} when the pair does not merge.
  MergeResult CachedLookup(TokenId left, TokenId right) const;
  // Fills byte_pairs_ for a kRanks model whose ids 0-255 are the 256 single bytes (tiktoken's files are).
  void BuildBytePairs();
  void MergeShort(std::vector<Symbol>& symbols) const;
  void MergeShortLinked(std::vector<Symbol>& symbols) const;
  void MergeWithHeap(std::vector<Symbol>& symbols) const;

  static uint64_t PairKey(TokenId left, TokenId right) { return (uint64_t{left} << 32) | right; }

  uint64_t serial_;  // Identifies this model in the per-thread pair caches (an address may be reused).
  Rule rule_;
  std::vector<std::string> tokens_;                          // id -> bytes
  absl::flat_hash_map<std::string, TokenId> ids_;            // bytes -> id
  std::vector<MergePair> merges_;                            // rank -> pair (kMergeList only)
  absl::flat_hash_map<uint64_t, MergeResult> merge_lookup_;  // (left, right) -> (rank, result) (kMergeList only)
  // [left << 8 | right] -> the id (= rank) of their joined bytes, or kNoMerge, for ids below 256 (kRanks models
  // whose ids 0-255 are the single bytes; else empty): CachedLookup reads it instead of the pair cache.
  std::vector<uint32_t> byte_pairs_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_BPE_MODEL_H_
