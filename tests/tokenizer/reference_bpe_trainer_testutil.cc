#include "tests/tokenizer/reference_bpe_trainer_testutil.h"

#include <map>
#include <utility>

namespace tokvec {
namespace {

// The spelling the tie-break compares: `</w>` for the end-of-word byte (written independently of the trainer).
std::string Spell(ModelType type, const std::string& token) {
  if (type == ModelType::kWord && !token.empty() && token.back() == kEndOfWordByte) {
    return token.substr(0, token.size() - 1) + "</w>";
  }
  return token;
}

std::vector<std::string> InitialSymbols(ModelType type, const std::string& word) {
  std::vector<std::string> symbols;
  for (size_t i = 0; i < word.size();) {
    size_t len = 1;
    if (type == ModelType::kWord) {
      unsigned char lead = static_cast<unsigned char>(word[i]);
      len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    }
    symbols.push_back(word.substr(i, len));
    i += len;
  }
  if (type == ModelType::kWord) symbols.push_back(std::string(1, kEndOfWordByte));
  return symbols;
}

}  // namespace

std::vector<ReferenceMerge> ReferenceTrainBpe(const std::vector<WordCount>& words, ModelType type,
                                              size_t max_merges, uint64_t min_frequency) {
  std::vector<std::pair<std::vector<std::string>, uint64_t>> state;
  for (const WordCount& word : words) state.push_back({InitialSymbols(type, word.word), word.count});
  std::vector<ReferenceMerge> merges;
  while (merges.size() < max_merges) {
    // Recount every pair at every position.
    std::map<std::pair<std::string, std::string>, uint64_t> counts;
    for (const auto& [symbols, count] : state) {
      for (size_t i = 0; i + 1 < symbols.size(); ++i) counts[{symbols[i], symbols[i + 1]}] += count;
    }
    const std::pair<std::string, std::string>* best = nullptr;
    uint64_t best_count = 0;
    for (const auto& [pair, count] : counts) {
      if (best == nullptr || count > best_count) {
        best = &pair;
        best_count = count;
        continue;
      }
      if (count < best_count) continue;
      std::string left = Spell(type, pair.first), best_left = Spell(type, best->first);
      std::string right = Spell(type, pair.second), best_right = Spell(type, best->second);
      if (left < best_left || (left == best_left && right < best_right)) best = &pair;
    }
    if (best == nullptr || best_count < min_frequency) break;
    ReferenceMerge merge{best->first, best->second};
    merges.push_back(merge);
    for (auto& [symbols, count] : state) {
      std::vector<std::string> merged;
      for (size_t i = 0; i < symbols.size(); ++i) {
        if (i + 1 < symbols.size() && symbols[i] == merge.left && symbols[i + 1] == merge.right) {
          merged.push_back(merge.left + merge.right);
          ++i;
        } else {
          merged.push_back(symbols[i]);
        }
      }
      symbols = std::move(merged);
    }
  }
  return merges;
}

}  // namespace tokvec
