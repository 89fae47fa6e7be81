// Count files (tokenizer/trainers/count_file.h): what tokvec count writes reads back as the same counts, counts of a piece
// add up across lines and files, and every malformed line is an error naming the file and line.
#include "tokenizer/trainers/count_file.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

// (piece, count) pairs sorted by piece.
std::vector<std::pair<std::string, uint64_t>> Sorted(const std::vector<WordCount>& pieces) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const WordCount& p : pieces) out.emplace_back(p.word, p.count);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CountFileTest, AnyBytesRoundTripSortedWithTheHeader) {
  const std::vector<WordCount> pieces = {{" the", 7},         {"\t\n\r\\", 1},        {std::string("\0a", 2), 3},
                                         {"\xFF\xFE", 18446744073709551615ULL}, {"é", 2}, {",", 5000000000ULL}};
  const CountFileHeader header{.type = "byte", .pre_tokenizer = "my regex \\s+", .normalizer = "nfkc"};
  const std::string text = FormatCountFile(header, pieces);
  EXPECT_THAT(text, ::testing::StartsWith("tokvec-counts 1 type=byte pre_tokenizer=my\\sregex\\s\\\\s+ "
                                          "normalizer=nfkc\n"));
  EXPECT_THAT(text, HasSubstr("\\sthe\t7\n"));
  EXPECT_THAT(text, HasSubstr("\\t\\n\\r\\\\\t1\n"));
  EXPECT_THAT(text, HasSubstr("\\xFF\\xFE\t18446744073709551615\n"));
  PieceCounts back;
  ASSERT_TRUE(ParseCountText(text, "x", /*word=*/false, &back).ok());
  ASSERT_TRUE(back.header.has_value());
  EXPECT_EQ(*back.header, header);
  EXPECT_EQ(Sorted(back.pieces), Sorted(pieces));
  // Sorted by bytes: formatting what was read gives the same text.
  EXPECT_EQ(FormatCountFile(back.header, back.pieces), text);
}

TEST(CountFileTest, CountsOfAPieceAddUpAcrossLinesAndFiles) {
  PieceCounts counts;
  ASSERT_TRUE(ParseCountText("ab\t2\ncd\t1\r\n\nab\t3\n", "part-0", false, &counts).ok());
  ASSERT_TRUE(ParseCountText("cd\t10\nef\t4294967296", "part-1", false, &counts).ok());  // no final newline
  EXPECT_FALSE(counts.header.has_value());
  EXPECT_EQ(Sorted(counts.pieces), (std::vector<std::pair<std::string, uint64_t>>{
                                       {"ab", 5}, {"cd", 11}, {"ef", 4294967296ULL}}));
}

TEST(CountFileTest, MalformedLinesNameTheFileAndLine) {
  struct Case {
    std::string text;
    bool word;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"ab\t1\nab 2\n", false, "line 2: a raw space"},
      {"ab\n", false, "line 1: expected `PIECE<TAB>COUNT`"},
      {"a\tb\t1\n", false, "one tab"},
      {"ab\t0\n", false, "a count of 0"},
      {"ab\t-1\n", false, "not a whole number"},
      {"ab\t18446744073709551616\n", false, "not a whole number"},
      {"ab\t18446744073709551615\nab\t1\n", false, "line 2: the piece's counts add up past 2^64 - 1"},
      {"\t5\n", false, "an empty piece"},
      {"a\\q\t5\n", false, "unknown escape"},
      {"\\xF\t5\n", false, "two hex digits"},
      {"a\\sb\t1\n", true, "a word model's piece"},
      {"\\xFF\t1\n", true, "a word model's piece"},
      {"tokvec-counts 2 type=byte pre_tokenizer=gpt2 normalizer=none\n", false, "version 2"},
      {"tokvec-counts 1 type=bytes pre_tokenizer=gpt2 normalizer=none\n", false, "not word or byte"},
      {"tokvec-counts 1 kind=byte pre_tokenizer=gpt2 normalizer=none\n", false, "should start with `type=`"},
      {"tokvec-counts 1 type=byte pre_tokenizer=gpt2 normalizer=none split=words\n", false,
       "header field 6 is 'split=words'; it can only be `split=lines`"},
  };
  for (const Case& c : cases) {
    PieceCounts counts;
    const absl::Status status = ParseCountText(c.text, "counts.tsv", c.word, &counts);
    EXPECT_FALSE(status.ok()) << c.text;
    EXPECT_THAT(std::string(status.message()), HasSubstr("count file 'counts.tsv', line")) << c.text;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(CountFileTest, FilesWithDifferentHeadersAreRefused) {
  PieceCounts counts;
  ASSERT_TRUE(ParseCountText("tokvec-counts 1 type=byte pre_tokenizer=gpt2 normalizer=none\na\t1\n", "a", false,
                             &counts)
                  .ok());
  ASSERT_TRUE(ParseCountText("b\t1\n", "b", false, &counts).ok());  // no header: fine
  const absl::Status status = ParseCountText(
      "tokvec-counts 1 type=byte pre_tokenizer=cl100k normalizer=none\nc\t1\n", "c", false, &counts);
  EXPECT_THAT(std::string(status.message()), HasSubstr("counted with type=byte pre_tokenizer=cl100k"));
}

// Counts made line by line say so in a last header field, and differ from counts of whole texts.
TEST(CountFileTest, SplitLinesIsPartOfTheHeader) {
  const CountFileHeader lines{.type = "byte", .pre_tokenizer = "gpt2", .normalizer = "none", .split_lines = true};
  EXPECT_EQ(lines.ToString(), "type=byte pre_tokenizer=gpt2 normalizer=none split=lines");
  PieceCounts counts;
  ASSERT_TRUE(ParseCountText(FormatCountFile(lines, {{"a", 1}}), "a", false, &counts).ok());
  ASSERT_TRUE(counts.header.has_value());
  EXPECT_EQ(*counts.header, lines);
  const absl::Status status = ParseCountText(
      "tokvec-counts 1 type=byte pre_tokenizer=gpt2 normalizer=none\nb\t1\n", "b", false, &counts);
  EXPECT_THAT(std::string(status.message()), HasSubstr("counted with type=byte pre_tokenizer=gpt2 normalizer=none,"));
}

}  // namespace
}  // namespace tokvec
