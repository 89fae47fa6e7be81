// Seeded generated text for the CLI robustness tests (determinism, bounded memory): repetitive English-like
// words, accented and CJK words, numbers and punctuation, one line at a time, from a fixed vocabulary plus
// rarer "words" drawn from a bounded pool, so the number of unique words stays bounded however much is made.
//
//   CorpusGenerator corpus(/*seed=*/1);
//   std::string chunk = corpus.Next(1 << 20);  // about 1 MB of whole lines
#ifndef TOKVEC_TESTS_CLI_CORPUS_TESTUTIL_H_
#define TOKVEC_TESTS_CLI_CORPUS_TESTUTIL_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tokvec::testing {

class CorpusGenerator {
 public:
  // `rare_words`: size of the pool of rare made-up words (the bound on unique words).
  explicit CorpusGenerator(uint64_t seed, size_t rare_words = 50000);
  // At least `bytes` bytes of whole lines ('\n'-terminated).
  std::string Next(size_t bytes);

 private:
  std::string Line();

  std::mt19937_64 rng_;
  std::vector<std::string> common_;  // Frequent words.
  size_t rare_words_;
};

// `bytes` of generated text from `seed` at once (for small corpora).
std::string GenerateCorpus(uint64_t seed, size_t bytes);

}  // namespace tokvec::testing

#endif  // TOKVEC_TESTS_CLI_CORPUS_TESTUTIL_H_
