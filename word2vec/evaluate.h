// Questions to word vectors: nearest neighbours, analogies (3CosAdd), analogy accuracy as word2vec's
// compute-accuracy counts it, and Spearman correlation with human similarity scores.
//
//   UnitVectors unit(vectors);                                   // rows scaled to length 1
//   auto best = unit.Nearest(query, 10, {cat});                  // cosine, highest first, cat left out
//   TOKVEC_ASSIGN_OR_RETURN(AnalogyReport report, EvaluateAnalogies(unit, questions_text, {.max_words = 30000}));
//   TOKVEC_ASSIGN_OR_RETURN(SimilarityReport sim, EvaluateSimilarity(unit, simlex_text, {}));
//
// Analogy accuracy (Mikolov et al. 2013a, section 4.1): for `a b c d`, the answer is the word w, other than a, b
// and c, with the largest cos(w, b - a + c) over unit vectors; the question is right when w is d. As in
// compute-accuracy.c: only the first max_words vectors take part (30000 there; 0 here means all), words are
// compared after ASCII upper-casing (unless case_sensitive), the first row of a spelling is the one used, a
// question with a word outside those rows is counted as seen but not answered, the accuracy is correct / answered,
// and the first five sections count as semantic, the others as syntactic.
#ifndef TOKVEC_WORD2VEC_EVALUATE_H_
#define TOKVEC_WORD2VEC_EVALUATE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "word2vec/vectors.h"

namespace tokvec::word2vec {

struct Neighbour {
  int64_t row;
  float cosine;
};

class UnitVectors {
 public:
  // The first `max_words` rows (0: all), each divided by its length (a zero row stays zero).
  explicit UnitVectors(const Vectors& vectors, int64_t max_words = 0);
  int64_t size() const { return static_cast<int64_t>(words_.size()); }
  int64_t dim() const { return dim_; }
  const std::string& word(int64_t row) const { return words_[static_cast<size_t>(row)]; }
  const float* row(int64_t r) const { return values_.data() + static_cast<size_t>(r) * static_cast<size_t>(dim_); }
  // The first row spelled `word` (after upper-casing both when !case_sensitive), or -1.
  int64_t Find(std::string_view word, bool case_sensitive) const;
  // The k rows with the largest dot product with `query` ([dim]), leaving out `exclude`; ties keep row order.
  std::vector<Neighbour> Nearest(const float* query, int64_t k, const std::vector<int64_t>& exclude) const;

 private:
  std::vector<std::string> words_;
  int64_t dim_ = 0;
  std::vector<float> values_;  // [V, D]
  absl::flat_hash_map<std::string, int64_t> exact_, upper_;  // spelling -> first row
};

// ASCII upper case, as C's toupper in the "C" locale.
std::string AsciiUpper(std::string_view word);

struct AnalogyOptions {
  bool case_sensitive = false;
  int threads = 1;
};

struct AnalogySection {
  std::string name;
  int64_t questions = 0;  // lines in the section
  int64_t answered = 0;   // all four words known
  int64_t correct = 0;
};

struct AnalogyReport {
  std::vector<AnalogySection> sections;
  AnalogySection total, semantic, syntactic;
};

// `text`: questions-words.txt style, `: section` lines and `a b c d` lines. `name` is used in messages.
absl::StatusOr<AnalogyReport> EvaluateAnalogies(const UnitVectors& unit, std::string_view text,
                                                const std::string& name, const AnalogyOptions& options);

struct SimilarityReport {
  double spearman = 0;
  int64_t pairs = 0;  // lines with a score
  int64_t used = 0;   // both words known
};

// `text`: `word1 word2 score` lines (tabs or spaces; a first line without a numeric score is a header).
absl::StatusOr<SimilarityReport> EvaluateSimilarity(const UnitVectors& unit, std::string_view text,
                                                    const std::string& name, bool case_sensitive);

// Spearman's rank correlation (ties get their mean rank).
double Spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_EVALUATE_H_
