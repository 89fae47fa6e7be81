#include "tests/cli/corpus_testutil.h"

namespace tokvec::testing {

CorpusGenerator::CorpusGenerator(uint64_t seed, size_t rare_words) : rng_(seed), rare_words_(rare_words) {
  common_ = {"the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by",
             "on", "not", "he", "I", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an",
             "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been",
             "low", "lower", "newest", "widest", "tokenizer", "embedding", "attention", "vectors",
             "caf\u00e9", "na\u00efve", "\u00fcber", "stra\u00dfe", "\u65e5\u672c\u8a9e", "\u4e2d\u6587",
             "\u0440\u0443\u0441\u0441\u043a\u0438\u0439", "\u03b5\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
             "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "emoji\U0001F600", "don't", "it's", "1999", "42",
             "3.14", "--", "...", "(see", "below)", "\"quoted\"", "e-mail", "co-operate"};
}

std::string CorpusGenerator::Line() {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz";
  std::string line;
  const int n_words = 3 + static_cast<int>(rng_() % 14);
  for (int i = 0; i < n_words; ++i) {
    if (i > 0) line += (rng_() % 20 == 0) ? "  " : " ";
    if (rng_() % 10 == 0) {
      // A rare word: a deterministic spelling of a number below rare_words_.
      uint64_t k = rng_() % rare_words_;
      std::string word;
      do {
        word += kLetters[k % 26];
        k /= 26;
      } while (k > 0);
      line += "x" + word;
    } else {
      // Zipf-like: low indices much more often.
      const size_t a = rng_() % common_.size(), b = rng_() % common_.size();
      line += common_[std::min(a, b)];
    }
    if (rng_() % 12 == 0) line += (rng_() % 2 == 0) ? "," : ".";
  }
  if (rng_() % 15 == 0) line += "\t" + std::to_string(rng_() % 100000);
  line += '\n';
  return line;
}

std::string CorpusGenerator::Next(size_t bytes) {
  std::string out;
  out.reserve(bytes + 256);
  while (out.size() < bytes) out += Line();
  return out;
}

std::string GenerateCorpus(uint64_t seed, size_t bytes) { return CorpusGenerator(seed).Next(bytes); }

}  // namespace tokvec::testing
