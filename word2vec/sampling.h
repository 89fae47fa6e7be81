// The two output layers' lookup structures: negative samples drawn from unigram^0.75, and Huffman codes for the
// hierarchical softmax.
//
//   NegativeSampler sampler(vocab.counts);
//   int64_t w = sampler.Sample(random48);      // P(w) = count(w)^0.75 / sum count^0.75
//   HuffmanCodes tree(vocab.counts);
//   for (d = tree.offsets[w]; d < tree.offsets[w + 1]; ++d) { tree.points[d] (inner node), tree.codes[d] (0/1) }
#ifndef TOKVEC_WORD2VEC_SAMPLING_H_
#define TOKVEC_WORD2VEC_SAMPLING_H_

#include <cstdint>
#include <vector>

namespace tokvec::word2vec {

// Draws words with probability proportional to count^0.75 (Mikolov et al. 2013b, section 2.2: "the unigram
// distribution raised to the 3/4rd power"). word2vec.c fills a table of 10^8 ints (400 MB) with word ids and
// indexes it at random, a cache miss per sample; this is Walker's alias method (Walker 1977; Vose 1991), two
// arrays of the vocabulary's size, exact up to 16-bit acceptance thresholds.
class NegativeSampler {
 public:
  NegativeSampler() = default;
  explicit NegativeSampler(const std::vector<int64_t>& counts);
  // `random` holds 48 random bits: the high 32 pick a bin, the low 16 accept it or take its alias.
  int64_t Sample(uint64_t random) const {
    const uint64_t bin = ((random >> 16) * size_) >> 32;
    return (random & 0xFFFF) < threshold_[bin] ? static_cast<int64_t>(bin) : alias_[bin];
  }
  // The probability the sampler gives word w (for tests).
  double Probability(int64_t w) const;

 private:
  uint64_t size_ = 0;
  std::vector<uint32_t> threshold_;  // [V] accept bin i when the 16-bit value is below this (65536: always).
  std::vector<int32_t> alias_;       // [V] the word taken otherwise.
};

// Huffman coding of the vocabulary by count (2013a section 3.1, 2013b section 2.1): frequent words get short
// paths. Inner nodes are numbered 0..V-2, the root is V-2, as in word2vec.c's CreateBinaryTree.
struct HuffmanCodes {
  HuffmanCodes() = default;
  explicit HuffmanCodes(const std::vector<int64_t>& counts);
  std::vector<int64_t> offsets;  // [V + 1] word w's path is [offsets[w], offsets[w+1])
  std::vector<uint8_t> codes;    // branch taken at each node on the path, root first
  std::vector<int32_t> points;   // inner node at each step, root first
};

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_SAMPLING_H_
