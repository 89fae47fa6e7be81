#include "tokenizer/models/spelling_table.h"

#include <algorithm>
#include <limits>

#include "fmt/format.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {
namespace {

// Ids far beyond the vocabulary would make the id table huge.
constexpr size_t kMaxIdGap = 65536;

}  // namespace

absl::StatusOr<SpellingTable> SpellingTable::Create(std::vector<std::pair<std::string, TokenId>> vocab,
                                                    std::string_view kind) {
  if (vocab.empty()) return absl::InvalidArgumentError(fmt::format("the {} vocabulary is empty", kind));
  TokenId largest = 0;
  for (const auto& [spelling, id] : vocab) largest = std::max(largest, id);
  if (largest >= vocab.size() + kMaxIdGap) {
    return absl::InvalidArgumentError(
        fmt::format("id {} is far beyond the {} tokens of the vocabulary", largest, vocab.size()));
  }
  SpellingTable table;
  table.tokens_.resize(size_t{largest} + 1);
  table.ids_.reserve(vocab.size());
  for (auto& [spelling, id] : vocab) {
    if (spelling.empty()) return absl::InvalidArgumentError(fmt::format("token {} has an empty spelling", id));
    if (!table.tokens_[id].empty()) {
      return absl::InvalidArgumentError(
          fmt::format("id {} is given to two tokens, '{}' and '{}'", id, table.tokens_[id], spelling));
    }
    if (!table.ids_.emplace(spelling, id).second) {
      return absl::InvalidArgumentError(fmt::format("the spelling '{}' is given twice", spelling));
    }
    table.tokens_[id] = std::move(spelling);
  }
  return table;
}

absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> HfVocabPairs(const FlatVocab& flat,
                                                                          const std::string& path) {
  std::vector<std::pair<std::string, TokenId>> vocab;
  vocab.reserve(flat.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    if (flat.id(i) > std::numeric_limits<TokenId>::max()) {
      return HfKeyError(path, fmt::format("model.vocab.{}", flat.spelling(i)), "the id must be a non-negative integer");
    }
    vocab.emplace_back(flat.spelling(i), static_cast<TokenId>(flat.id(i)));
  }
  return vocab;
}

}  // namespace tokvec
