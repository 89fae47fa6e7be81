#include "tests/word2vec/word2vec_testutil.h"

#include <random>

namespace tokvec::word2vec::testing {

std::string GroupedCorpus(int groups, int words_per_group, int lines, uint64_t seed) {
  std::mt19937_64 rng(seed);
  static const char* kGlue[] = {"the", "eats", "at", "with", "near", "and", "of", "then"};
  std::string text;
  for (int l = 0; l < lines; ++l) {
    for (int g = 0; g < groups; ++g) {
      text += kGlue[g % 8];
      text += ' ';
      text += "g" + std::to_string(g) + "w" + std::to_string(rng() % static_cast<uint64_t>(words_per_group));
      text += g + 1 < groups ? ' ' : '\n';
    }
  }
  return text;
}

int GroupOf(const std::string& word) {
  if (word.size() < 4 || word[0] != 'g') return -1;
  const size_t w = word.find('w');
  if (w == std::string::npos) return -1;
  return std::stoi(word.substr(1, w - 1));
}

}  // namespace tokvec::word2vec::testing
