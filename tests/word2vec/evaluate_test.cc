// Evaluation: analogies on hand-made vectors whose answers are known, compute-accuracy's rules (upper-casing,
// first row wins, unanswered questions, best score must be > 0), and Spearman against values computed by hand
// (and scipy.stats.spearmanr: [1,2,3,4,5] vs [5,6,7,8,7] -> 0.8207826816681233).
#include "word2vec/evaluate.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec::word2vec {
namespace {

Vectors Toy() {
  // king - man + woman = queen exactly; "Paris"/"paris" duplicates check first-row-wins after upper-casing.
  Vectors v;
  v.dim = 3;
  auto add = [&](std::string w, std::vector<float> x) {
    v.words.push_back(std::move(w));
    v.values.insert(v.values.end(), x.begin(), x.end());
  };
  add("man", {1, 0, 0.1f});
  add("woman", {1, 1, 0.1f});
  add("king", {1, 0, 1});
  add("queen", {1, 1, 1});
  add("apple", {-1, -1, -1});
  add("Queen", {1, 1, 0.9f});
  return v;
}

TEST(EvaluateTest, AnalogiesPerSectionAsComputeAccuracy) {
  UnitVectors unit(Toy());
  const std::string text =
      ": royal\nman woman king queen\nMAN WOMAN KING QUEEN\nwoman man queen king\nman woman king zebra\n"
      ": fruit\nman king woman apple\n";
  auto report = EvaluateAnalogies(unit, text, "q.txt", {});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->sections.size(), 2u);
  EXPECT_EQ(report->sections[0].name, "royal");
  EXPECT_EQ(report->sections[0].questions, 4);
  EXPECT_EQ(report->sections[0].answered, 3);  // zebra is unknown
  EXPECT_EQ(report->sections[0].correct, 3);
  EXPECT_EQ(report->sections[1].answered, 1);
  EXPECT_EQ(report->sections[1].correct, 0);
  EXPECT_EQ(report->total.answered, 4);
  EXPECT_EQ(report->total.correct, 3);
  EXPECT_EQ(report->semantic.correct, 3);
  EXPECT_EQ(report->syntactic.answered, 0);
  // Case-sensitive: MAN etc. are unknown.
  auto exact = EvaluateAnalogies(unit, text, "q.txt", {.case_sensitive = true, .threads = 2});
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->sections[0].answered, 2);
  // Restricted to the first 3 rows: no question has all four words.
  UnitVectors small(Toy(), 3);
  auto none = EvaluateAnalogies(small, text, "q.txt", {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->total.answered, 0);
}

TEST(EvaluateTest, BadQuestionLineNamesTheLine) {
  UnitVectors unit(Toy());
  auto report = EvaluateAnalogies(unit, ": s\na b c\n", "q.txt", {});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), ::testing::HasSubstr("'q.txt' line 2"));
}

TEST(EvaluateTest, SpearmanMatchesScipy) {
  EXPECT_NEAR(Spearman({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 0.8207826816681233, 1e-12);
  EXPECT_NEAR(Spearman({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
}

TEST(EvaluateTest, SimilarityCountsPairsAndSkipsAHeader) {
  UnitVectors unit(Toy());
  auto report = EvaluateSimilarity(unit, "word1\tword2\tscore\nking queen 9\nman woman 7\napple king 1\nx y 3\n",
                                   "s.txt", false);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->pairs, 4);
  EXPECT_EQ(report->used, 3);
  EXPECT_NEAR(report->spearman, 1.0, 1e-12);  // cos(king,queen) > cos(man,woman) > cos(apple,king)
  EXPECT_FALSE(EvaluateSimilarity(unit, "a b 1\nc d x\n", "s.txt", false).ok());
}

TEST(EvaluateTest, NearestKeepsRowOrderOnTies) {
  UnitVectors unit(Toy());
  const float q[3] = {1, 0, 0};
  auto best = unit.Nearest(q, 2, {0});
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(unit.word(best[0].row), "king");
}

}  // namespace
}  // namespace tokvec::word2vec
