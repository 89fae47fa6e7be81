// WordPieceModel: greedy longest-match-first cases worked out by hand from the algorithm.
#include "tokenizer/models/wordpiece/wordpiece_model.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

WordPieceModel MakeModel(size_t max_chars = 100, std::string prefix = "##") {
  std::vector<std::pair<std::string, TokenId>> vocab = {
      {"[UNK]", 0}, {"un", 1},  {"##aff", 2}, {"##able", 3}, {"a", 4},  {"##a", 5},   {"aff", 6},
      {"##", 7},    {"é", 8},   {"##é", 9},   {"##b", 10},   {"b", 11}, {"##ab", 12}, {"unaff", 13}};
  absl::StatusOr<WordPieceModel> model =
      WordPieceModel::Create(std::move(vocab), {.unk_token = "[UNK]",
                                                .continuing_subword_prefix = std::move(prefix),
                                                .max_input_chars_per_word = max_chars});
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(model).value();
}

// (id, begin) pairs of Tokenize(word, 100).
std::vector<std::pair<TokenId, size_t>> Cut(const WordPieceModel& model, std::string_view word) {
  std::vector<BpeModel::Symbol> symbols;
  model.Tokenize(word, 100, &symbols);
  std::vector<std::pair<TokenId, size_t>> out;
  for (const BpeModel::Symbol& s : symbols) out.emplace_back(s.id, s.begin);
  return out;
}

using Cuts = std::vector<std::pair<TokenId, size_t>>;

TEST(WordPieceModelTest, LongestMatchFirstFromTheStart) {
  const WordPieceModel model = MakeModel();
  // "unaff" (13) is longer than "un" (1): taken first; then "##able".
  EXPECT_EQ(Cut(model, "unaffable"), (Cuts{{13, 100}, {3, 105}}));
  // "a" then "##b" then "##a"? No: after "a", the longest continuation is "##ab" (12).
  EXPECT_EQ(Cut(model, "aab"), (Cuts{{4, 100}, {12, 101}}));
  EXPECT_EQ(Cut(model, "affa"), (Cuts{{6, 100}, {5, 103}}));
  EXPECT_EQ(Cut(model, "b"), (Cuts{{11, 100}}));
}

TEST(WordPieceModelTest, ContinuationsNeedThePrefix) {
  const WordPieceModel model = MakeModel();
  // "able" alone is not a token ("##able" is): the word cannot start with it.
  EXPECT_EQ(Cut(model, "able"), (Cuts{{0, 100}}));
  // A word that starts with the prefix is looked up as it is: "##a" (5) is the longest match at the start.
  EXPECT_EQ(Cut(model, "##a"), (Cuts{{5, 100}}));
  EXPECT_EQ(Cut(model, "##aa"), (Cuts{{5, 100}, {5, 103}}));
  EXPECT_EQ(Cut(model, "##x"), (Cuts{{0, 100}}));  // "##" (7) matches, then "##x" is not a token.
}

TEST(WordPieceModelTest, UncuttableWordIsOneUnkOverTheWholeWord) {
  const WordPieceModel model = MakeModel();
  EXPECT_EQ(Cut(model, "unx"), (Cuts{{0, 100}}));   // "un" matches, then nothing for "x".
  EXPECT_EQ(Cut(model, "xa"), (Cuts{{0, 100}}));
  EXPECT_EQ(Cut(model, ""), (Cuts{}));
}

TEST(WordPieceModelTest, MultiByteCodePointsAreNeverSplit) {
  const WordPieceModel model = MakeModel();
  EXPECT_EQ(Cut(model, "éé"), (Cuts{{8, 100}, {9, 102}}));
  EXPECT_EQ(Cut(model, "aé"), (Cuts{{4, 100}, {9, 101}}));
}

TEST(WordPieceModelTest, MaxInputCharsCountsCodePoints) {
  const WordPieceModel model = MakeModel(/*max_chars=*/3);
  EXPECT_EQ(Cut(model, "ééé"), (Cuts{{8, 100}, {9, 102}, {9, 104}}));  // 3 code points, 6 bytes: allowed.
  EXPECT_EQ(Cut(model, "aaaa"), (Cuts{{0, 100}}));                     // 4 code points: unk.
}

TEST(WordPieceModelTest, OtherPrefix) {
  std::vector<std::pair<std::string, TokenId>> vocab = {{"<unk>", 0}, {"ab", 1}, {"@@c", 2}, {"##c", 3}};
  absl::StatusOr<WordPieceModel> model =
      WordPieceModel::Create(vocab, {.unk_token = "<unk>", .continuing_subword_prefix = "@@"});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(Cut(*model, "abc"), (Cuts{{1, 100}, {2, 102}}));
  EXPECT_EQ(model->unk_id(), 0u);
  EXPECT_EQ(model->token(2), "@@c");
}

TEST(WordPieceModelTest, CreateRefusesBadVocabularies) {
  using Vocab = std::vector<std::pair<std::string, TokenId>>;
  auto error = [](Vocab vocab) {
    absl::StatusOr<WordPieceModel> model = WordPieceModel::Create(std::move(vocab), {});
    EXPECT_FALSE(model.ok());
    return model.ok() ? std::string() : std::string(model.status().message());
  };
  EXPECT_NE(error({}).find("empty"), std::string::npos);
  EXPECT_NE(error({{"a", 0}}).find("unk token '[UNK]' is not in the vocabulary"), std::string::npos);
  EXPECT_NE(error({{"[UNK]", 0}, {"a", 0}}).find("id 0 is given to two tokens"), std::string::npos);
  EXPECT_NE(error({{"[UNK]", 0}, {"a", 4000000}}).find("far beyond"), std::string::npos);
}

}  // namespace
}  // namespace tokvec
