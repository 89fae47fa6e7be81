#include "word2vec/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tokvec::word2vec {

NegativeSampler::NegativeSampler(const std::vector<int64_t>& counts) : size_(counts.size()) {
  // Vose's construction: scale each probability by V, pair each under-full bin with an over-full one.
  const size_t n = counts.size();
  std::vector<double> scaled(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += std::pow(static_cast<double>(counts[i]), 0.75);
  for (size_t i = 0; i < n; ++i) scaled[i] = std::pow(static_cast<double>(counts[i]), 0.75) / sum * static_cast<double>(n);
  threshold_.assign(n, 65536);
  alias_.resize(n);
  for (size_t i = 0; i < n; ++i) alias_[i] = static_cast<int32_t>(i);
  std::vector<size_t> small, large;
  for (size_t i = 0; i < n; ++i) (scaled[i] < 1.0 ? small : large).push_back(i);
  while (!small.empty() && !large.empty()) {
    const size_t s = small.back(), l = large.back();
    small.pop_back();
    threshold_[s] = static_cast<uint32_t>(std::lround(scaled[s] * 65536.0));
    alias_[s] = static_cast<int32_t>(l);
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers are full bins up to rounding.
}

double NegativeSampler::Probability(int64_t w) const {
  double p = 0;
  for (size_t i = 0; i < size_; ++i) {
    if (static_cast<int64_t>(i) == w) p += threshold_[i] / 65536.0;
    if (alias_[i] == w && threshold_[i] < 65536) p += 1.0 - threshold_[i] / 65536.0;
  }
  return p / static_cast<double>(size_);
}

HuffmanCodes::HuffmanCodes(const std::vector<int64_t>& counts) {
  // Leaves are 0..V-1 (sorted by count, descending, so the two smallest are at the end), inner nodes V..2V-2 are
  // made in increasing weight; two cursors walk the leaves downward and the inner nodes upward (Huffman 1952 in
  // linear time, as word2vec.c does).
  const int64_t v = static_cast<int64_t>(counts.size());
  std::vector<int64_t> weight(static_cast<size_t>(2 * v), std::numeric_limits<int64_t>::max() / 4);
  std::vector<int64_t> parent(static_cast<size_t>(2 * v), 0);
  std::vector<uint8_t> branch(static_cast<size_t>(2 * v), 0);
  for (int64_t i = 0; i < v; ++i) weight[static_cast<size_t>(i)] = counts[static_cast<size_t>(i)];
  int64_t leaf = v - 1, inner = v;
  auto take = [&]() {
    if (leaf >= 0 && weight[static_cast<size_t>(leaf)] < weight[static_cast<size_t>(inner)]) return leaf--;
    return inner++;
  };
  for (int64_t a = 0; a < v - 1; ++a) {
    const int64_t first = take(), second = take();
    weight[static_cast<size_t>(v + a)] = weight[static_cast<size_t>(first)] + weight[static_cast<size_t>(second)];
    parent[static_cast<size_t>(first)] = v + a;
    parent[static_cast<size_t>(second)] = v + a;
    branch[static_cast<size_t>(second)] = 1;
  }
  // Each word's path, leaf to root, then reversed so the root comes first.
  const int64_t root = 2 * v - 2;
  offsets.push_back(0);
  std::vector<int64_t> path;
  for (int64_t w = 0; w < v; ++w) {
    path.clear();
    for (int64_t node = w; node != root; node = parent[static_cast<size_t>(node)]) path.push_back(node);
    // Step j (root first) decides at inner node parent(path[k]) which child, path[k], leads to w.
    for (size_t k = path.size(); k-- > 0;) {
      codes.push_back(branch[static_cast<size_t>(path[k])]);
      points.push_back(static_cast<int32_t>(parent[static_cast<size_t>(path[k])] - v));
    }
    offsets.push_back(static_cast<int64_t>(codes.size()));
  }
}

}  // namespace tokvec::word2vec
