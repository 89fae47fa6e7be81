#include "tokenizer/models/bpe/bpe_model.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

std::vector<BpeModel::Symbol> Symbols(const BpeModel& model, std::string_view text) {
  std::vector<BpeModel::Symbol> symbols;
  for (size_t i = 0; i < text.size(); ++i) symbols.push_back({*model.Find(text.substr(i, 1)), i});
  return symbols;
}

std::vector<std::string> Spell(const BpeModel& model, const std::vector<BpeModel::Symbol>& symbols) {
  std::vector<std::string> out;
  for (const auto& s : symbols) out.push_back(model.token(s.id));
  return out;
}

// Tokens a, b, c + merges; id = index.
BpeModel SmallMergeModel() {
  std::vector<std::string> tokens = {"a", "b", "c", "aa", "aab", "bc", "aaaa"};
  std::vector<BpeModel::MergePair> merges = {{0, 0}, {3, 1}, {1, 2}, {3, 3}};
  return *BpeModel::FromMerges(tokens, merges);
}

TEST(BpeModelTest, MergesLowestRankLeftmostFirst) {
  BpeModel model = SmallMergeModel();
  auto symbols = Symbols(model, "aab");
  model.Merge(symbols);
  EXPECT_EQ(Spell(model, symbols), (std::vector<std::string>{"aab"}));
  symbols = Symbols(model, "aaab");
  model.Merge(symbols);  // a a merges leftmost first: [aa a b]; (a, b) does not merge.
  EXPECT_EQ(Spell(model, symbols), (std::vector<std::string>{"aa", "a", "b"}));
  EXPECT_EQ(symbols[1].begin, 2u);
  symbols = Symbols(model, "aaaa");
  model.Merge(symbols);
  EXPECT_EQ(Spell(model, symbols), (std::vector<std::string>{"aaaa"}));
}

TEST(BpeModelTest, RankRuleMergesByConcatenationRank) {
  // tiktoken: "ab" (rank 3) beats "bc" (rank 4), then "abc" is rank 5.
  BpeModel model = *BpeModel::FromRanks({"a", "b", "c", "ab", "bc", "abc"});
  auto symbols = Symbols(model, "abc");
  model.Merge(symbols);
  EXPECT_EQ(Spell(model, symbols), (std::vector<std::string>{"abc"}));
  BpeModel reversed = *BpeModel::FromRanks({"a", "b", "c", "bc", "ab"});
  symbols = Symbols(reversed, "abc");
  reversed.Merge(symbols);
  EXPECT_EQ(Spell(reversed, symbols), (std::vector<std::string>{"a", "bc"}));
}

TEST(BpeModelTest, RejectsMergeWhoseResultIsMissing) {
  auto model = BpeModel::FromMerges({"a", "b"}, {{0, 1}});
  EXPECT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("merge 0"), std::string::npos);
}

// Merge shifts a pair array up to 24 symbols, links one up to 256 (MergeShortLinked) and takes the heap path
// above; each must equal the O(n²) rescan of MergeReference, for merge lists and for tiktoken ranks, at every
// length around the switches.
TEST(BpeModelTest, FastPathsEqualReferenceOnRandomPieces) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    // Random vocabulary over {a, b, c}: random merges among existing tokens.
    std::vector<std::string> tokens = {"a", "b", "c"};
    std::vector<BpeModel::MergePair> merges;
    for (int m = 0; m < 12; ++m) {
      TokenId l = rng() % tokens.size(), r = rng() % tokens.size();
      std::string joined = tokens[l] + tokens[r];
      bool exists = false;
      for (const auto& t : tokens) exists |= t == joined;
      if (!exists) tokens.push_back(joined);
      merges.push_back({l, r});
    }
    std::vector<BpeModel> models;
    models.push_back(*BpeModel::FromMerges(tokens, merges));
    models.push_back(*BpeModel::FromRanks(tokens));
    for (size_t length : {1, 2, 3, 7, 24, 25, 26, 31, 32, 33, 48, 49, 200, 255, 256, 257, 600}) {
      std::string text;
      for (size_t i = 0; i < length; ++i) text += "abc"[rng() % 3];
      for (const BpeModel& model : models) {
        auto fast = Symbols(model, text);
        auto slow = fast;
        model.Merge(fast);
        model.MergeReference(slow);
        ASSERT_EQ(fast.size(), slow.size()) << "trial " << trial << " length " << length;
        for (size_t i = 0; i < fast.size(); ++i) {
          ASSERT_EQ(fast[i].id, slow[i].id) << "trial " << trial << " length " << length << " symbol " << i;
          ASSERT_EQ(fast[i].begin, slow[i].begin);
        }
      }
    }
  }
}

// A ranks model whose ids 0-255 are the 256 single bytes (as tiktoken's files are) reads pairs of two bytes from
// a dense table (BpeModel::BuildBytePairs) instead of the pair cache: the same merges as MergeReference, for
// pieces of every merge path, with two-byte tokens and longer ones at random ranks.
TEST(BpeModelTest, ByteLevelRanksEqualReference) {
  std::mt19937 rng(256);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::string> tokens;
    for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
    std::shuffle(tokens.begin(), tokens.end(), rng);  // ids 0-255 in no byte order
    const std::string alphabet = "abcdxyz\xe4\xb8\x80";
    std::vector<std::string> made;  // tokens of two or more alphabet bytes, built from shorter ones
    auto part = [&]() -> std::string {
      if (made.empty() || rng() % 2 == 0) return std::string(1, alphabet[rng() % alphabet.size()]);
      return made[rng() % made.size()];
    };
    for (int m = 0; m < 60; ++m) {
      const std::string joined = part() + part();
      if (std::find(made.begin(), made.end(), joined) == made.end()) made.push_back(joined);
    }
    tokens.insert(tokens.end(), made.begin(), made.end());
    const BpeModel model = *BpeModel::FromRanks(tokens);
    for (size_t length : {2, 5, 24, 25, 60, 256, 300}) {
      std::string text;
      for (size_t i = 0; i < length; ++i) text += alphabet[rng() % alphabet.size()];
      auto fast = Symbols(model, text);
      auto slow = fast;
      model.Merge(fast);
      model.MergeReference(slow);
      ASSERT_EQ(Spell(model, fast), Spell(model, slow)) << "trial " << trial << " length " << length;
    }
  }
}

}  // namespace
}  // namespace tokvec
