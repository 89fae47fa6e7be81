// The query vector of a word for nearest-neighbour and analogy questions (`tokvec word2vec similar` and
// `analogy`): the word's own row, or for token vectors (trained with --tokenizer, rows spelled as the tokenizer
// spells tokens) the mean of its tokens' rows.
//
//   std::vector<int64_t> rows;   // the rows the query is made of, to leave out of the answers
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<float> query, QueryVector(unit, tokenizer, "cat", "vectors.bin", &rows));
//   Normalize(query);
//   auto best = unit.Nearest(query.data(), 10, rows);
#ifndef TOKVEC_WORD2VEC_QUERY_VECTOR_H_
#define TOKVEC_WORD2VEC_QUERY_VECTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"
#include "word2vec/evaluate.h"

namespace tokvec::word2vec {

// The query vector of `word` ([dim], not normalised) and the rows it is made of (appended to `rows`): the word's
// row, or with a tokenizer the mean of its tokens' rows. `file` names the vectors in messages. NotFound for a word
// (or one of its tokens) without a row; InvalidArgument for a word that encodes to no token.
absl::StatusOr<std::vector<float>> QueryVector(const UnitVectors& unit, const Tokenizer* tokenizer,
                                               const std::string& word, const std::string& file,
                                               std::vector<int64_t>* rows);

// Scales `v` to length 1 (a zero vector stays zero).
void Normalize(std::vector<float>& v);

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_QUERY_VECTOR_H_
