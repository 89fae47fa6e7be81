#include "tokenizer/formats/spelled_vocab.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "tokenizer/text/byte_unicode.h"

namespace tokvec {

absl::StatusOr<BpeModel> BuildSpelledBpe(const SpelledVocab& vocab, const std::string& vocab_where,
                                         std::vector<UnreachableToken>* unreachable, bool byte_level,
                                         size_t merge_right_skip) {
  // 1. Tokens by id, as bytes.
  const FlatVocab& entries = vocab.tokens;
  const uint64_t max_id = entries.size() * 2 + 1024;  // Refuse absurd ids instead of allocating them.
  uint64_t largest = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries.id(i) > max_id) {
      return absl::InvalidArgumentError(fmt::format("{}: token '{}' has id {}, far beyond the {} tokens given",
                                                    vocab_where, entries.spelling(i), entries.id(i), entries.size()));
    }
    largest = std::max(largest, entries.id(i));
  }
  std::vector<std::string> tokens(entries.size() == 0 ? 0 : largest + 1);
  std::vector<bool> unreachable_id(unreachable != nullptr ? tokens.size() : 0);
  absl::flat_hash_set<std::string_view> unreachable_spelling;
  std::string bytes;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string_view spelling = entries.spelling(i);
    const uint64_t id = entries.id(i);
    bytes.clear();
    if (!byte_level && spelling.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}: the token with id {} is the empty string", vocab_where, id));
    }
    const bool spelled = byte_level ? AppendUnicodeToBytes(spelling, &bytes) && !bytes.empty()
                                    : (bytes.assign(spelling), true);
    if (!spelled && unreachable != nullptr) {
      if (!tokens[id].empty() || unreachable_id[id]) {
        return absl::InvalidArgumentError(fmt::format("{}: two tokens have id {}", vocab_where, id));
      }
      unreachable_id[id] = true;
      unreachable->push_back({static_cast<TokenId>(id), std::string(spelling)});
      unreachable_spelling.insert(spelling);
      continue;
    }
    if (!spelled) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: token '{}' (id {}) is not spelled in GPT-2's byte-to-unicode alphabet; only byte-level BPE "
          "vocabularies are supported",
          vocab_where, spelling, id));
    }
    if (!tokens[id].empty() || (unreachable != nullptr && unreachable_id[id])) {
      if (tokens[id].empty()) return absl::InvalidArgumentError(fmt::format("{}: two tokens have id {}", vocab_where, id));
      return absl::InvalidArgumentError(fmt::format("{}: tokens '{}' and '{}' both have id {}", vocab_where,
                                                    byte_level ? BytesToUnicode(tokens[id]) : tokens[id], spelling, id));
    }
    tokens[id] = bytes;
  }
  absl::StatusOr<BpeModel> ranks = BpeModel::FromRanks(std::move(tokens));
  if (!ranks.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", vocab_where, std::string(ranks.status().message())));
  }
  // 2. Merges, through the model's bytes -> id table (a spelling names the token with its bytes), a block at a
  // time so that the lookups of a block wait for memory together (FindMany).
  // Merges naming an unreachable token can never apply: they are dropped (`rank_of` maps kept -> file rank).
  // Without unreachable tokens (the usual case) every merge is kept and rank_of is not built (2 MB for Llama-3).
  const bool all_kept = unreachable_spelling.empty();
  std::vector<size_t> rank_of;
  if (!all_kept) {
    for (size_t rank = 0; rank < vocab.merges.size(); ++rank) {
      if (!unreachable_spelling.contains(vocab.merges.left(rank)) &&
          !unreachable_spelling.contains(vocab.merges.right(rank))) {
        rank_of.push_back(rank);
      }
    }
  }
  auto file_rank = [&](size_t kept) { return all_kept ? kept : rank_of[kept]; };
  std::vector<BpeModel::MergePair> merges(all_kept ? vocab.merges.size() : rank_of.size());
  constexpr size_t kBlock = 16;
  std::string bytes_of[2 * kBlock];  // Left and right sides of a block, as bytes.
  std::string_view keys[2 * kBlock];
  std::optional<TokenId> ids[2 * kBlock];
  for (size_t block = 0; block < merges.size(); block += kBlock) {
    const size_t count = std::min(kBlock, merges.size() - block);
    size_t unspelled = 2 * count;  // The first side that is not in the byte alphabet (then not a token).
    for (size_t k = 0; k < 2 * count && unspelled == 2 * count; ++k) {
      const size_t rank = file_rank(block + k / 2);
      bytes_of[k].clear();
      const std::string_view side = k % 2 == 0 ? vocab.merges.left(rank) : vocab.merges.right(rank);
      if (!byte_level) {
        bytes_of[k].assign(side);
      } else if (!AppendUnicodeToBytes(side, &bytes_of[k])) {
        unspelled = k;
      }
      keys[k] = bytes_of[k];
    }
    ranks->FindMany(keys, 2 * count, ids);
    for (size_t k = 0; k < 2 * count; ++k) {
      if (k >= unspelled || !ids[k]) {
        const size_t rank = file_rank(block + k / 2);
        const std::string_view left = vocab.merges.left(rank);
        const std::string_view right = vocab.merges.right(rank);
        return absl::InvalidArgumentError(
            fmt::format("{}: merge '{} {}' names token '{}', which is not in the vocabulary ({})",
                        vocab.merge_where(rank), left, right, k % 2 == 0 ? left : right, vocab_where));
      }
      if (k % 2 == 1) merges[block + k / 2] = {*ids[k - 1], *ids[k]};
    }
  }
  // 3. The model; it checks that each merge makes a token (the spelling of a concatenation is the concatenation
  // of spellings), and only if one does not is it looked for here, to name it.
  size_t bad = 0;
  absl::StatusOr<BpeModel> bpe = BpeModel::WithMerges(std::move(ranks).value(), std::move(merges), &bad, merge_right_skip);
  if (bpe.ok()) return bpe;
  bad = file_rank(bad);
  const std::string_view left = vocab.merges.left(bad);
  const std::string_view right = vocab.merges.right(bad);
  if (merge_right_skip > 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: merge '{} {}' makes a token that is not in the vocabulary ('{}' joined to '{}' without its first {} "
        "byte(s), the continuing_subword_prefix; {})",
        vocab.merge_where(bad), left, right, left, right, merge_right_skip, vocab_where));
  }
  return absl::InvalidArgumentError(fmt::format("{}: merge '{} {}' makes '{}{}', which is not in the vocabulary ({})",
                                                vocab.merge_where(bad), left, right, left, right, vocab_where));
}

TokenizerSpec ByteLevelSpec(BpeModel bpe) {
  return TokenizerSpec{.type = ModelType::kByte, .bpe = std::move(bpe)};
}

}  // namespace tokvec
