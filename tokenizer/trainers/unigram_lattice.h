// The segmentation lattice of the Unigram trainer (unigram_trainer.h): every way to cut a word into pieces of a
// vocabulary, with the three things the EM of Kudo (2018) asks of it.
//
//   PieceTrie trie({"▁", "a", "b", "▁a", "ab", "▁ab"});
//   std::vector<double> scores = {...};  // log probabilities, by id
//   UnigramLattice lattice;
//   lattice.Build("▁ab", trie);
//   std::vector<double> probs;
//   double log_z = lattice.Marginals(scores, /*unk_score=*/-20, &probs);
//   // probs[i] = P(edges()[i] is on the path | "▁ab"); log_z = log of Σ over paths of e^(path score)
//   double best = lattice.Viterbi(scores, -20, &ids);  // the most likely cut
//
// Positions are byte offsets of the word; pieces start and end at character starts. A character that no
// one-character piece covers gets an unk edge (id kUnkEdge, scored `unk_score`), as Hugging Face and SentencePiece
// do, so every word has a path. Edges are kept in order of their start, which is a topological order.
#ifndef TOKVEC_TOKENIZER_TRAINERS_UNIGRAM_LATTICE_H_
#define TOKVEC_TOKENIZER_TRAINERS_UNIGRAM_LATTICE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tokvec {

// A byte trie of piece spellings; piece `i` of the constructor's list has id i.
class PieceTrie {
 public:
  explicit PieceTrie(const std::vector<std::string>& pieces);

  // Calls f(id, end) for each piece that `text` holds at `pos` (text.substr(pos, end - pos)), shortest first.
  template <typename F>
  void ForEachAt(std::string_view text, size_t pos, F&& f) const {
    uint32_t node = 0;
    for (size_t i = pos; i < text.size(); ++i) {
      auto it = edges_.find(uint64_t{node} << 8 | static_cast<unsigned char>(text[i]));
      if (it == edges_.end()) return;
      node = it->second;
      if (ends_[node] >= 0) f(ends_[node], i + 1);
    }
  }

 private:
  absl::flat_hash_map<uint64_t, uint32_t> edges_;  // (node << 8 | byte) -> child
  std::vector<int32_t> ends_;                      // [nodes] the id the node spells, or -1
};

class UnigramLattice {
 public:
  static constexpr int32_t kUnkEdge = -1;
  struct Edge {
    uint32_t begin;
    uint32_t end;
    int32_t id;  // a piece id, or kUnkEdge
  };

  // The edges of `word` (UTF-8, not empty). `skip_id` leaves out the edge that spans the whole word with that id
  // (what the second-best cut of a piece is searched without).
  void Build(std::string_view word, const PieceTrie& trie, int32_t skip_id = -2);

  // P(edge | word) for every edge, in `probs` (by edge index), and log Z, the log of the summed probability of
  // every path. scores[id] is the log probability of piece id.
  double Marginals(const std::vector<double>& scores, double unk_score, std::vector<double>* probs);

  // The best path's ids (kUnkEdge for unk) in `ids` and its score.
  double Viterbi(const std::vector<double>& scores, double unk_score, std::vector<int32_t>* ids);

  const std::vector<Edge>& edges() const { return edges_; }

 private:
  size_t size_ = 0;
  std::vector<Edge> edges_;
  std::vector<double> alpha_, beta_;
  std::vector<int32_t> back_;  // Viterbi: the edge index that reaches each position best
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_UNIGRAM_LATTICE_H_
