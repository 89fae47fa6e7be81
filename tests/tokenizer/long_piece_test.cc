// Long pieces (no split point): the bucketed merge path of BpeModel equals the naive reference under both merge
// rules, and a megabyte encodes in linear time (issue: "no quadratic cases"; tiktoken's own pathological test
// is "a" * 1,000,000).
#include <algorithm>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

TEST(LongPieceTest, RankRuleMergeEqualsReferenceOnRandomPieces) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    // Random ranks over {a, b, c}: bytes first, then random concatenations of existing tokens.
    std::vector<std::string> tokens = {"a", "b", "c"};
    for (int m = 0; m < 20; ++m) {
      std::string joined = tokens[rng() % tokens.size()] + tokens[rng() % tokens.size()];
      if (std::find(tokens.begin(), tokens.end(), joined) == tokens.end()) tokens.push_back(joined);
    }
    // Shuffle the ranks of the merged tokens so that priorities do not follow length.
    std::shuffle(tokens.begin() + 3, tokens.end(), rng);
    BpeModel model = *BpeModel::FromRanks(tokens);
    std::vector<BpeModel::Symbol> fast;
    for (size_t i = 0; i < 300; ++i) fast.push_back({static_cast<TokenId>(rng() % 3), i});
    std::vector<BpeModel::Symbol> slow = fast;
    model.Merge(fast);  // 300 symbols: the long-piece path.
    model.MergeReference(slow);
    ASSERT_EQ(fast.size(), slow.size()) << "trial " << trial;
    for (size_t i = 0; i < fast.size(); ++i) {
      ASSERT_EQ(fast[i].id, slow[i].id) << "trial " << trial << " symbol " << i;
      ASSERT_EQ(fast[i].begin, slow[i].begin);
    }
  }
}

TEST(LongPieceTest, OneMegabyteWithoutSplitPointsEncodesUnderASecond) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NDEBUG)
  GTEST_SKIP() << "timing is only meaningful in optimized, unsanitized builds";
#endif
  std::optional<std::string> path = testing::SharedVocabPath("cl100k_base.tiktoken");
  if (!path) GTEST_SKIP() << "cl100k_base.tiktoken not in the shared vocab folder";
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  std::mt19937 rng(7);
  std::string letters;
  for (int i = 0; i < 1 << 20; ++i) letters += static_cast<char>('a' + rng() % 26);
  for (const std::string& text : {std::string(1 << 20, 'a'), letters, std::string(1 << 20, ' ')}) {
    // CPU time of this (single-threaded) process: steadier than wall time on a busy machine.
    const std::clock_t start = std::clock();
    absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
    const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    std::printf("1 MB of '%s...': %.3f s CPU, %zu ids\n", text.substr(0, 6).c_str(), seconds, encoding->ids.size());
    EXPECT_LT(seconds, 1.0) << "1 MB of '" << text.substr(0, 8) << "...' took " << seconds << " s of CPU";
    absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoding->ids);
    ASSERT_TRUE(decoded.ok());
    EXPECT_TRUE(*decoded == text);
  }
}

}  // namespace
}  // namespace tokvec
