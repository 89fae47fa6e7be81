// --lines examples (training/line_examples.h): which lines are kept, how rows are padded and masked for each
// objective, and that a row depends only on (seed, row index).
#include "training/line_examples.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "gtest/gtest.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

TEST(LineExamplesTest, BlankLinesSkippedCrlfStrippedLongLinesCut) {
  auto tokenizer = Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_gpt2_f32");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string path = (std::filesystem::temp_directory_path() / "line_examples_test.txt").string();
  std::ofstream(path) << "the cat\r\n\n   \t\nsat on the mat and the cat sat again\nend";
  auto lines = LineExamples::Encode(**tokenizer, {path}, 4);
  std::filesystem::remove(path);
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_EQ(lines->size(), 3);
  std::vector<TokenId> expected;
  ASSERT_TRUE((*tokenizer)->EncodeIds("the cat", {}, &expected).ok());
  EXPECT_EQ(std::vector<int32_t>(lines->Example(0).begin(), lines->Example(0).end()),
            std::vector<int32_t>(expected.begin(), expected.end()));
  EXPECT_EQ(lines->Example(1).size(), 4u);
  EXPECT_EQ(lines->truncated(), 1);
}

LineExamples Five() { return LineExamples::FromLines({{10, 11, 12}, {20}, {30, 31, 32, 33, 34, 35}, {40, 41}, {50}}); }

TEST(LineExamplesTest, ClmRowsAreTheLineShiftedAndPadded) {
  const MicroBatch b = LineBatch(Five(), LineObjective::kClm, 0, 3, 4, /*shuffle=*/false, 0, /*pad_id=*/7);
  EXPECT_EQ(b.inputs, (std::vector<int32_t>{10, 11, 12, 7, 20, 7, 7, 7, 30, 31, 32, 33}));
  const int32_t x = kIgnoreIndex;
  EXPECT_EQ(b.targets, (std::vector<int32_t>{11, 12, x, x, x, x, x, x, 31, 32, 33, 34}));
  EXPECT_EQ(b.key_lengths, (std::vector<int32_t>{3, 1, 4}));
  EXPECT_EQ(b.pairs, 0);
}

TEST(LineExamplesTest, SimcseRowsComeInPairsWithoutTargets) {
  const MicroBatch b = LineBatch(Five(), LineObjective::kSimcse, 3, 2, 3, /*shuffle=*/false, 0);
  EXPECT_EQ(b.B, 4);
  EXPECT_EQ(b.pairs, 2);
  EXPECT_EQ(b.inputs, (std::vector<int32_t>{40, 41, 0, 50, 0, 0, 40, 41, 0, 50, 0, 0}));
  EXPECT_EQ(b.key_lengths, (std::vector<int32_t>{2, 1, 2, 1}));
  EXPECT_TRUE(b.targets.empty());
}

TEST(LineExamplesTest, MlmNeverMasksOrPredictsPadding) {
  const LineExamples lines = Five();
  for (int64_t first = 0; first < 200; first += 5) {
    const MicroBatch b = LineBatch(lines, LineObjective::kMlm, first, 5, 6, false, 0, 0, /*mask_id=*/1, 60, 9);
    for (int64_t r = 0; r < 5; ++r) {
      for (int64_t t = b.key_lengths[static_cast<size_t>(r)]; t < 6; ++t) {
        EXPECT_EQ(b.inputs[static_cast<size_t>(r * 6 + t)], 0);
        EXPECT_EQ(b.targets[static_cast<size_t>(r * 6 + t)], kIgnoreIndex);
      }
    }
  }
}

TEST(LineExamplesTest, ShuffledEpochsVisitEveryLineOnceAndRowsDependOnlyOnSeedAndIndex) {
  const LineExamples lines = Five();
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    std::set<int64_t> seen;
    for (int64_t g = epoch * 5; g < epoch * 5 + 5; ++g) seen.insert(lines.ExampleOfRow(g, true, 42));
    EXPECT_EQ(seen.size(), 5u);
  }
  // Row 7 alone (a fresh object, as after --resume) equals row 7 of a batch starting at 5.
  const MicroBatch whole = LineBatch(lines, LineObjective::kClm, 5, 4, 6, true, 42);
  const MicroBatch alone = LineBatch(Five(), LineObjective::kClm, 7, 1, 6, true, 42);
  EXPECT_EQ(std::vector<int32_t>(whole.inputs.begin() + 12, whole.inputs.begin() + 18), alone.inputs);
  bool differs = false;
  for (int64_t g = 0; g < 10; ++g) differs |= lines.ExampleOfRow(g, true, 42) != lines.ExampleOfRow(g, true, 43);
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace tokvec::training
