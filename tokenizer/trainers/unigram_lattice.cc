#include "tokenizer/trainers/unigram_lattice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(e^a + e^b) without overflow; either may be -inf.
double LogAdd(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == kNegInf) return a;
  return a + std::log1p(std::exp(b - a));
}

}  // namespace

PieceTrie::PieceTrie(const std::vector<std::string>& pieces) {
  ends_.push_back(-1);
  for (size_t id = 0; id < pieces.size(); ++id) {
    uint32_t node = 0;
    for (unsigned char byte : pieces[id]) {
      auto [it, inserted] = edges_.try_emplace(uint64_t{node} << 8 | byte, static_cast<uint32_t>(ends_.size()));
      if (inserted) ends_.push_back(-1);
      node = it->second;
    }
    if (node != 0) ends_[node] = static_cast<int32_t>(id);
  }
}

void UnigramLattice::Build(std::string_view word, const PieceTrie& trie, int32_t skip_id) {
  size_ = word.size();
  edges_.clear();
  for (size_t pos = 0; pos < word.size();) {
    size_t len = Utf8SequenceLength(word, pos);
    if (len == 0) len = 1;
    bool single = false;
    trie.ForEachAt(word, pos, [&](int32_t id, size_t end) {
      if (id == skip_id && pos == 0 && end == word.size()) return;
      if (end == pos + len) single = true;
      edges_.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(end), id});
    });
    if (!single) edges_.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + len), kUnkEdge});
    pos += len;
  }
}

double UnigramLattice::Marginals(const std::vector<double>& scores, double unk_score, std::vector<double>* probs) {
  alpha_.assign(size_ + 1, kNegInf);
  beta_.assign(size_ + 1, kNegInf);
  alpha_[0] = 0;
  beta_[size_] = 0;
  auto score = [&](const Edge& e) { return e.id == kUnkEdge ? unk_score : scores[e.id]; };
  for (const Edge& e : edges_) alpha_[e.end] = LogAdd(alpha_[e.end], alpha_[e.begin] + score(e));
  for (auto it = edges_.rbegin(); it != edges_.rend(); ++it) {
    beta_[it->begin] = LogAdd(beta_[it->begin], score(*it) + beta_[it->end]);
  }
  const double log_z = alpha_[size_];
  probs->resize(edges_.size());
  for (size_t i = 0; i < edges_.size(); ++i) {
    const Edge& e = edges_[i];
    (*probs)[i] = std::exp(alpha_[e.begin] + score(e) + beta_[e.end] - log_z);
  }
  return log_z;
}

double UnigramLattice::Viterbi(const std::vector<double>& scores, double unk_score, std::vector<int32_t>* ids) {
  alpha_.assign(size_ + 1, kNegInf);
  back_.assign(size_ + 1, -1);
  alpha_[0] = 0;
  for (size_t i = 0; i < edges_.size(); ++i) {
    const Edge& e = edges_[i];
    const double s = alpha_[e.begin] + (e.id == kUnkEdge ? unk_score : scores[e.id]);
    if (s > alpha_[e.end]) {
      alpha_[e.end] = s;
      back_[e.end] = static_cast<int32_t>(i);
    }
  }
  ids->clear();
  for (size_t pos = size_; pos > 0;) {
    const Edge& e = edges_[back_[pos]];
    ids->push_back(e.id);
    pos = e.begin;
  }
  std::reverse(ids->begin(), ids->end());
  return alpha_[size_];
}

}  // namespace tokvec
