// Shared fixtures of the word2vec tests: a synthetic corpus whose words fall in groups that share contexts.
#ifndef TOKVEC_TESTS_WORD2VEC_WORD2VEC_TESTUTIL_H_
#define TOKVEC_TESTS_WORD2VEC_WORD2VEC_TESTUTIL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tokvec::word2vec::testing {

// Words of group g are "g<g>w<i>". Each line is "the <animal> eats <food> at the <place> <adverb>"-like: one word
// of each group at a fixed slot between fixed function words, chosen by a seeded generator. Words of a group are
// interchangeable, so a trained model should put each word's nearest neighbour in its own group.
std::string GroupedCorpus(int groups, int words_per_group, int lines, uint64_t seed);

// The group of a word of GroupedCorpus ("g3w7" -> 3), or -1 for function words and "</s>".
int GroupOf(const std::string& word);

}  // namespace tokvec::word2vec::testing

#endif  // TOKVEC_TESTS_WORD2VEC_WORD2VEC_TESTUTIL_H_
