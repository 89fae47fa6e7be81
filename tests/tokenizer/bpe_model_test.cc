#include "tokenizer/bpe_model.h"

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

}  // namespace
}  // namespace tokvec
