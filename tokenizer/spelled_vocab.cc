#include "tokenizer/spelled_vocab.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "tokenizer/byte_unicode.h"

namespace tokvec {

absl::StatusOr<BpeModel> BuildSpelledBpe(const SpelledVocab& vocab, const std::string& vocab_where,
                                         bool byte_level) {
  // 1. Tokens by id, as bytes.
  const uint64_t max_id = vocab.tokens.size() * 2 + 1024;  // Refuse absurd ids instead of allocating them.
  std::vector<std::string> tokens;
  absl::flat_hash_map<std::string, TokenId> id_of;  // spelling -> id
  id_of.reserve(vocab.tokens.size());
  for (const auto& [spelling, id] : vocab.tokens) {
    if (id > max_id) {
      return absl::InvalidArgumentError(fmt::format("{}: token '{}' has id {}, far beyond the {} tokens given",
                                                    vocab_where, spelling, id, vocab.tokens.size()));
    }
    std::optional<std::string> bytes = byte_level ? UnicodeToBytes(spelling) : std::optional<std::string>(spelling);
    if (!byte_level && spelling.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}: the token with id {} is the empty string", vocab_where, id));
    }
    if (!bytes || bytes->empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: token '{}' (id {}) is not spelled in GPT-2's byte-to-unicode alphabet; only byte-level BPE "
          "vocabularies are supported",
          vocab_where, spelling, id));
    }
    if (id >= tokens.size()) tokens.resize(id + 1);
    if (!tokens[id].empty()) {
      return absl::InvalidArgumentError(fmt::format("{}: tokens '{}' and '{}' both have id {}", vocab_where,
                                                    byte_level ? BytesToUnicode(tokens[id]) : tokens[id], spelling, id));
    }
    tokens[id] = std::move(*bytes);
    id_of[spelling] = static_cast<TokenId>(id);
  }
  // 2. Merges by spelling; the spelling of a concatenation is the concatenation of spellings.
  std::vector<BpeModel::MergePair> merges;
  merges.reserve(vocab.merges.size());
  for (const SpelledMerge& merge : vocab.merges) {
    auto left = id_of.find(merge.left);
    auto right = id_of.find(merge.right);
    for (const auto* side : {&left, &right}) {
      if (*side == id_of.end()) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: merge '{} {}' names token '{}', which is not in the vocabulary ({})", merge.where, merge.left,
            merge.right, side == &left ? merge.left : merge.right, vocab_where));
      }
    }
    if (!id_of.contains(merge.left + merge.right)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: merge '{} {}' makes '{}', which is not in the vocabulary ({})", merge.where, merge.left,
                      merge.right, merge.left + merge.right, vocab_where));
    }
    merges.push_back({left->second, right->second});
  }
  absl::StatusOr<BpeModel> bpe = BpeModel::FromMerges(std::move(tokens), std::move(merges));
  if (!bpe.ok()) return absl::InvalidArgumentError(fmt::format("{}: {}", vocab_where, std::string(bpe.status().message())));
  return bpe;
}

TokenizerSpec ByteLevelSpec(BpeModel bpe) {
  return TokenizerSpec{.type = ModelType::kByte, .bpe = std::move(bpe)};
}

}  // namespace tokvec
