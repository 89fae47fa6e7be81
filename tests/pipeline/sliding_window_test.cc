#include "pipeline/sliding_window.h"

#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

std::vector<std::pair<int64_t, int64_t>> Spans(const std::vector<Window>& windows) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const Window& w : windows) out.emplace_back(w.begin, w.end);
  return out;
}

TEST(SlidingWindowTest, PlanCoversEverythingAndLastWindowEndsAtTheEnd) {
  absl::StatusOr<std::vector<Window>> w = PlanWindows(10, 4, 3);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Spans(*w), (std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {3, 7}, {6, 10}}));
  w = PlanWindows(11, 4, 3);  // the last window is moved back to [7, 11)
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Spans(*w), (std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {3, 7}, {6, 10}, {7, 11}}));
  w = PlanWindows(3, 4, 2);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Spans(*w), (std::vector<std::pair<int64_t, int64_t>>{{0, 3}}));
  w = PlanWindows(8, 4, 4);  // disjoint
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Spans(*w), (std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {4, 8}}));
}

TEST(SlidingWindowTest, BadStrideIsAnError) {
  EXPECT_FALSE(PlanWindows(10, 4, 5).ok());
  EXPECT_FALSE(PlanWindows(10, 4, 0).ok());
  EXPECT_FALSE(PlanWindows(10, 0, 1).ok());
}

TEST(SlidingWindowTest, CausalTokensTakeTheWindowWithMostLeftContext) {
  absl::StatusOr<std::vector<Window>> w = PlanWindows(10, 4, 3);
  ASSERT_TRUE(w.ok());
  // Token 3: 3 tokens to its left in [0,4), 0 in [3,7). Token 6: 3 in [3,7), 0 in [6,10).
  EXPECT_EQ(AssignTokensToWindows(*w, 10, /*causal=*/true), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}));
}

TEST(SlidingWindowTest, BidirectionalTokensTakeTheWindowWhereTheyAreMostCentral) {
  absl::StatusOr<std::vector<Window>> w = PlanWindows(12, 6, 3);  // [0,6) [3,9) [6,12)
  ASSERT_TRUE(w.ok());
  // Token 4: min(4, 1) = 1 in [0,6), min(1, 4) = 1 in [3,9): tie, the earlier window. Token 5: min(5,0)=0 vs
  // min(2,3)=2: the second.
  EXPECT_EQ(AssignTokensToWindows(*w, 12, /*causal=*/false),
            (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2}));
}

}  // namespace
}  // namespace tokvec
