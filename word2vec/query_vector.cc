#include "word2vec/query_vector.h"

#include <cmath>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec::word2vec {

// The query vector of `word` ([dim], not normalised) and the rows it is made of: the word's row, or with a
// tokenizer the mean of its tokens' rows.
absl::StatusOr<std::vector<float>> QueryVector(const UnitVectors& unit, const Tokenizer* tokenizer,
                                               const std::string& word, const std::string& file,
                                               std::vector<int64_t>* rows) {
  std::vector<int64_t> parts;
  if (tokenizer == nullptr) {
    const int64_t row = unit.Find(word, /*case_sensitive=*/true);
    if (row < 0) return absl::NotFoundError(fmt::format("'{}' is not a word of '{}'", word, file));
    parts.push_back(row);
  } else {
    std::vector<TokenId> ids;
    TOKVEC_RETURN_IF_ERROR(tokenizer->EncodeIds(word, {}, &ids));
    if (ids.empty()) return absl::InvalidArgumentError(fmt::format("'{}' encodes to no token", word));
    for (TokenId id : ids) {
      const std::string spelling = tokenizer->TokenSpelling(id);
      const int64_t row = unit.Find(spelling, /*case_sensitive=*/true);
      if (row < 0) {
        return absl::NotFoundError(fmt::format("token '{}' of '{}' has no vector in '{}'", spelling, word, file));
      }
      parts.push_back(row);
    }
  }
  std::vector<float> query(static_cast<size_t>(unit.dim()), 0.0f);
  for (int64_t row : parts) {
    for (int64_t d = 0; d < unit.dim(); ++d) query[static_cast<size_t>(d)] += unit.row(row)[d];
    rows->push_back(row);
  }
  for (float& v : query) v /= static_cast<float>(parts.size());
  return query;
}

void Normalize(std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  if (sum > 0) {
    const float inv = static_cast<float>(1 / std::sqrt(sum));
    for (float& x : v) x *= inv;
  }
}

}  // namespace tokvec::word2vec
