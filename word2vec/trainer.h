// Word2Vec training: skip-gram and CBOW (Mikolov et al. 2013a, "Efficient Estimation of Word Representations in
// Vector Space", arXiv:1301.3781) with negative sampling or hierarchical softmax and subsampling of frequent words
// (Mikolov et al. 2013b, "Distributed Representations of Words and Phrases and their Compositionality",
// arXiv:1310.4546), following the formulas of the authors' word2vec.c so results compare with it.
//
//   TOKVEC_ASSIGN_OR_RETURN(Corpus corpus, ReadWordCorpus({"text.txt"}, {.min_count = 5}));
//   TrainOptions options{.arch = Arch::kSkipGram, .loss = Loss::kNegative, .threads = 2};
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<float> input, Train(corpus, options));   // [V, dim]
//
// Threads, two ways:
// - Hogwild (default; Recht et al. 2011, as word2vec.c): each thread trains on its share of the text and updates
//   the shared matrices without locks. Fastest; the result depends on thread timing unless threads == 1.
// - deterministic: the text is cut into blocks of kBlockTokens words, a fixed number of blocks form a round.
//   Each block of a round trains sequentially on its own copy of the rows it touches, starting from the weights
//   at the start of the round, with a random stream seeded by (seed, epoch, block); then the blocks' changes are
//   added to the weights in block order. Nothing depends on which thread ran which block, so the vectors are
//   byte-identical for every --threads. The cost (copying rows, the serial merge, rounds waiting for the slowest
//   block) is measured in bench/word2vec.sh.
#ifndef TOKVEC_WORD2VEC_TRAINER_H_
#define TOKVEC_WORD2VEC_TRAINER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "word2vec/vocabulary.h"

namespace tokvec::word2vec {

enum class Arch { kSkipGram, kCbow };
enum class Loss { kNegative, kHierarchical };

struct TrainOptions {
  Arch arch = Arch::kSkipGram;
  Loss loss = Loss::kNegative;
  int64_t dim = 100;       // Vector size.
  int64_t window = 5;      // Largest distance to a context word; each position draws b in [0, window).
  int64_t negative = 5;    // Negative samples per target (ns).
  double sample = 1e-3;    // Subsampling threshold t (0: off).
  int64_t epochs = 5;
  double alpha = 0;        // Starting learning rate; 0: 0.025 for skip-gram, 0.05 for CBOW (word2vec.c's).
  int threads = 1;
  bool deterministic = false;
  uint64_t seed = 1;
  // Called now and then from one thread: fraction done, current alpha, words per second so far.
  std::function<void(double, double, double)> progress;
};

// Words of text per block in deterministic mode, and blocks per round (both fixed: independent of threads).
inline constexpr int64_t kBlockTokens = 8192;
inline constexpr int64_t kBlocksPerRound = 16;

// Trains on corpus.ids and returns the input vectors (word2vec.c's syn0, what it saves): [V, dim] row-major.
absl::StatusOr<std::vector<float>> Train(const Corpus& corpus, const TrainOptions& options);

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_TRAINER_H_
