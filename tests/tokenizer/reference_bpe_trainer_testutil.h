// A brute-force BPE trainer, the oracle for tokenizer/trainers/bpe_trainer.cc: every step recounts every pair of every
// word from scratch, picks the winner by the documented rule and rewrites every word. Slow and obviously right.
//
//   std::vector<ReferenceMerge> merges = ReferenceTrainBpe(words, ModelType::kWord, 10, 0);
//   // merges[0] == {"e", "s"} for Sennrich's example; `</w>` is the byte 0xFF as in the real trainer.
#ifndef TOKVEC_TESTS_TOKENIZER_REFERENCE_BPE_TRAINER_TESTUTIL_H_
#define TOKVEC_TESTS_TOKENIZER_REFERENCE_BPE_TRAINER_TESTUTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

struct ReferenceMerge {
  std::string left;   // Bytes of the left token.
  std::string right;  // Bytes of the right token.
  bool operator==(const ReferenceMerge&) const = default;
};

// Learns up to `max_merges` merges, stopping early when no pair is left or the best count is below
// `min_frequency`.
std::vector<ReferenceMerge> ReferenceTrainBpe(const std::vector<WordCount>& words, ModelType type,
                                              size_t max_merges, uint64_t min_frequency);

}  // namespace tokvec

#endif  // TOKVEC_TESTS_TOKENIZER_REFERENCE_BPE_TRAINER_TESTUTIL_H_
