// RecoverMerges (tokenizer/models/bpe/recover_merges.h): a hand-checked ranks model, and GPT-2's tiktoken ranks,
// whose recovered merges must be GPT-2's merges.txt, all 50,000 in order (../shared/vocab; skipped without it).
#include "tokenizer/models/bpe/recover_merges.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

BpeModel SmallRanks() {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  for (const char* t : {"ab", "bc", "abc", "xyz"}) tokens.push_back(t);  // ids 256, 257, 258, 259
  absl::StatusOr<BpeModel> bpe = BpeModel::FromRanks(std::move(tokens));
  EXPECT_TRUE(bpe.ok()) << bpe.status();
  return *std::move(bpe);
}

TEST(RecoverMergesTest, HandCheckedRanks) {
  const BpeModel bpe = SmallRanks();
  const ByteIds bytes = ByteIdsOf(bpe);
  // "abc": a b c -> (a, b) has rank 256 < (b, c)'s 257 -> [ab, c].
  const std::optional<BpeModel::MergePair> abc = RecoverMerge(bpe, 258, bytes);
  ASSERT_TRUE(abc.has_value());
  EXPECT_EQ(abc->left, 256u);
  EXPECT_EQ(abc->right, static_cast<TokenId>('c'));
  // "xyz": neither "xy" nor "yz" is a token, so no pair below rank 259 merges: no merge made it.
  EXPECT_FALSE(RecoverMerge(bpe, 259, bytes).has_value());
  // A one-byte token is no merge.
  EXPECT_FALSE(RecoverMerge(bpe, static_cast<TokenId>('a'), bytes).has_value());
  // All of them, in id order: ab = a+b, bc = b+c, abc = ab+c.
  const std::vector<BpeModel::MergePair> merges = RecoverMerges(bpe);
  ASSERT_EQ(merges.size(), 3u);
  EXPECT_EQ(bpe.token(merges[0].left) + "|" + bpe.token(merges[0].right), "a|b");
  EXPECT_EQ(bpe.token(merges[1].left) + "|" + bpe.token(merges[1].right), "b|c");
  EXPECT_EQ(bpe.token(merges[2].left) + "|" + bpe.token(merges[2].right), "ab|c");
}

TEST(RecoverMergesTest, Gpt2RanksGiveGpt2MergesTxt) {
  const std::optional<std::string> ranks_path = testing::SharedVocabPath("gpt2.tiktoken");
  const std::optional<std::string> vocab_path = testing::SharedVocabPath("gpt2/vocab.json");
  if (!ranks_path || !vocab_path) GTEST_SKIP() << "needs ../shared/vocab/gpt2.tiktoken and gpt2/vocab.json";
  absl::StatusOr<std::unique_ptr<Tokenizer>> ranks = Tokenizer::Load(*ranks_path);
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> merges_txt = Tokenizer::Load(*vocab_path);
  ASSERT_TRUE(merges_txt.ok()) << merges_txt.status();
  const BpeModel& from_ranks = (*ranks)->bpe();
  const BpeModel& from_file = (*merges_txt)->bpe();
  ASSERT_EQ(from_ranks.rule(), BpeModel::Rule::kRanks);
  ASSERT_EQ(from_file.rule(), BpeModel::Rule::kMergeList);

  const std::vector<BpeModel::MergePair> recovered = RecoverMerges(from_ranks);
  ASSERT_EQ(recovered.size(), from_file.merges().size());
  ASSERT_EQ(recovered.size(), 50000u);
  for (size_t i = 0; i < recovered.size(); ++i) {
    const std::string got = from_ranks.token(recovered[i].left) + " " + from_ranks.token(recovered[i].right);
    const std::string want =
        from_file.token(from_file.merges()[i].left) + " " + from_file.token(from_file.merges()[i].right);
    ASSERT_EQ(got, want) << "merge " << i << " (merges.txt line " << i + 2 << ")";
  }
}

}  // namespace
}  // namespace tokvec
