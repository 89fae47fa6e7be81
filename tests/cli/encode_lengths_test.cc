// `tokvec encode` with truncation and padding (tokenizer/sequence_encoding.h): a tokenizer.json's sections apply by
// default and the first cut is noted on stderr, --no-truncation / --no-padding give the plain ids, the options set
// them on any tokenizer, json has the masks and windows, and --lines --threads 2 writes what one thread writes. The
// ids themselves are checked against Hugging Face by SequenceEncodingTest and `make conformance` (lengths/*).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunTokvec;

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name; }

// The output's lines, each split into its space-separated fields.
std::vector<std::vector<std::string>> Lines(const std::string& out) {
  std::vector<std::vector<std::string>> lines;
  for (size_t at = 0; at < out.size();) {
    const size_t end = out.find('\n', at);
    std::vector<std::string> fields;
    const std::string line = out.substr(at, end - at);
    for (size_t f = 0; f <= line.size();) {
      size_t space = line.find(' ', f);
      if (space == std::string::npos) space = line.size();
      if (space > f) fields.push_back(line.substr(f, space - f));
      f = space + 1;
    }
    lines.push_back(fields);
    at = end + 1;
  }
  return lines;
}

const char kLongLine[] = "a b c d e f g h i j k l m n o p q r s t u v w x y z\n";

TEST(EncodeLengthsTest, TheFilesSectionsApplyAndTheFirstCutIsNoted) {
  const std::string file = DataPath("lengths/bert-multiple-of-8.json");  // max_length 16, pad to a multiple of 8
  const std::string input = std::string("hello world\n") + kLongLine + kLongLine;
  testing::RunResult r = RunTokvec({"encode", "-m", file, "--lines"}, {.stdin_data = input});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].size(), 8u);   // 2 tokens padded to 8
  EXPECT_EQ(lines[0].back(), "0");  // [PAD]
  EXPECT_EQ(lines[1].size(), 16u);  // cut
  EXPECT_THAT(r.err, HasSubstr("note: line 2 was cut to max_length 16 by truncation (the tokenizer.json's"));
  EXPECT_EQ(r.err.find("line 3"), std::string::npos) << "one note only";
  // --no-truncation --no-padding: every token, no padding, no note.
  r = RunTokvec({"encode", "-m", file, "--lines", "--no-truncation", "--no-padding"}, {.stdin_data = input});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_LT(Lines(r.out)[0].size(), 8u);
  EXPECT_NE(Lines(r.out)[0].back(), "0");
  EXPECT_EQ(Lines(r.out)[1].size(), 26u);
  EXPECT_EQ(r.err.find("note:"), std::string::npos);
  // Threads write what one thread writes.
  std::string many;
  for (int i = 0; i < 3000; ++i) many += i % 3 == 0 ? kLongLine : "short line\n";
  const testing::RunResult one = RunTokvec({"encode", "-m", file, "--lines"}, {.stdin_data = many});
  const testing::RunResult two = RunTokvec({"encode", "-m", file, "--lines", "--threads", "2"}, {.stdin_data = many});
  ASSERT_EQ(one.exit_code, 0) << one.Describe();
  EXPECT_EQ(one.out, two.out);
  EXPECT_THAT(two.err, HasSubstr("note: line 1 was cut"));
}

TEST(EncodeLengthsTest, OptionsOnAnyTokenizerJsonAndWindows) {
  const std::string file = DataPath("wordpiece/uncased.json");  // no sections
  testing::RunResult r = RunTokvec({"encode", "-m", file, "--max-length", "8", "--stride", "2", "--add-special-tokens",
                                    "--padding", "longest", "--pad-to-multiple-of", "5", "--format", "json"},
                                   {.stdin_data = kLongLine});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const nlohmann::json got = nlohmann::json::parse(r.out);
  ASSERT_EQ(got["ids"].size(), 10u);  // 8, rounded up to a multiple of 5
  EXPECT_EQ(got["ids"][0], 2);        // [CLS]
  EXPECT_EQ(got["attention_mask"], nlohmann::json({1, 1, 1, 1, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(got["special_tokens_mask"][0], 1);
  EXPECT_EQ(got["word_ids"][0], nullptr);
  EXPECT_EQ(got["word_ids"][1], 0);
  // Early exit: the whole text a..z is 27 tokens with its newline word; 8 are kept whole words first, 6 after the
  // budget of [CLS] and [SEP], the other 2 in windows of 6 overlapping by 2.
  ASSERT_EQ(got["overflowing"].size(), 1u);
  EXPECT_EQ(got["overflowing"][0]["ids"].size(), 10u);
  EXPECT_THAT(r.err, HasSubstr("note: the text was cut to max_length 8 by truncation (--max-length)"));
  // --overflowing: each window a line of its own after its text's.
  r = RunTokvec({"encode", "-m", file, "--max-length", "6", "--stride", "1", "--overflowing", "--lines",
                 "--truncation-side", "left", "--add-special-tokens"},
                {.stdin_data = kLongLine});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const auto lines = Lines(r.out);
  // The early exit keeps the last 6 words (u..z); [CLS] w x y z [SEP], then the window [CLS] u v w [SEP].
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), 6u);
  EXPECT_EQ(lines[1].size(), 5u);
  EXPECT_EQ(lines[0][1], lines[1][3]);  // the stride: both hold w
}

TEST(EncodeLengthsTest, InspectShowsTheSections) {
  const testing::RunResult r = RunTokvec({"inspect", DataPath("lengths/bert-left-stride.json")}, {});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_THAT(r.out, HasSubstr("truncation: max_length 12, LongestFirst, stride 3, Left\n"));
  EXPECT_THAT(r.out, HasSubstr("padding: Fixed 14, Left, pad [PAD] (id 0, type id 1)\n"));
  const testing::RunResult plain = RunTokvec({"inspect", DataPath("wordpiece/uncased.json")}, {});
  EXPECT_EQ(plain.out.find("truncation:"), std::string::npos);
}

}  // namespace
}  // namespace tokvec
