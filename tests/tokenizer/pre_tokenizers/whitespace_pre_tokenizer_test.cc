#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> Words(std::string_view text) {
  WhitespacePreTokenizer pre_tokenizer;
  std::vector<Piece> pieces;
  absl::Status status = pre_tokenizer.Split(text, &pieces);
  EXPECT_TRUE(status.ok()) << status;
  std::vector<std::string> words;
  for (const Piece& piece : pieces) words.emplace_back(text.substr(piece.begin, piece.end - piece.begin));
  return words;
}

TEST(WhitespacePreTokenizerTest, SplitsAtAsciiWhitespace) {
  EXPECT_THAT(Words("  low\tlower\r\nnewest \v\fwider\n"),
              ::testing::ElementsAre("low", "lower", "newest", "wider"));
  EXPECT_TRUE(Words("").empty());
  EXPECT_TRUE(Words(" \n\t").empty());
}

// White_Space per Unicode PropList.txt: U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000. Not White_Space: U+200B ZERO WIDTH SPACE, U+FEFF (BOM), U+180E.
TEST(WhitespacePreTokenizerTest, SplitsAtUnicodeWhiteSpaceOnly) {
  EXPECT_THAT(Words("a\u00A0b\u3000c\u2028d\u202Fe\u0085f\u1680g\u2009h"),
              ::testing::ElementsAre("a", "b", "c", "d", "e", "f", "g", "h"));
  EXPECT_THAT(Words("a\u200Bb \uFEFFc"), ::testing::ElementsAre("a\u200Bb", "\uFEFFc"));
  EXPECT_THAT(Words("日本語 テキスト"), ::testing::ElementsAre("日本語", "テキスト"));
}

TEST(WhitespacePreTokenizerTest, PiecesAreByteRanges) {
  WhitespacePreTokenizer pre_tokenizer;
  std::vector<Piece> pieces;
  ASSERT_TRUE(pre_tokenizer.Split("low\u3000lower", &pieces).ok());
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].begin, 0u);
  EXPECT_EQ(pieces[0].end, 3u);
  EXPECT_EQ(pieces[1].begin, 6u);
  EXPECT_EQ(pieces[1].end, 11u);
}

TEST(WhitespacePreTokenizerTest, InvalidUtf8IsAnErrorNamingTheOffset) {
  WhitespacePreTokenizer pre_tokenizer;
  std::vector<Piece> pieces;
  absl::Status status = pre_tokenizer.Split("ok caf\xE9 x", &pieces);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("invalid UTF-8 at byte offset 6 (byte 0xE9)"));
}

TEST(WhitespacePreTokenizerTest, FindInvalidUtf8) {
  EXPECT_EQ(FindInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("é日😀"), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("ab\xC3"), 2u);              // Truncated.
  EXPECT_EQ(FindInvalidUtf8("a\xC0\xAF"), 1u);           // Overlong '/'.
  EXPECT_EQ(FindInvalidUtf8("ab\xED\xA0\x80"), 2u);      // Surrogate U+D800.
  EXPECT_EQ(FindInvalidUtf8("\xF4\x90\x80\x80"), 0u);    // Above U+10FFFF.
  EXPECT_EQ(FindInvalidUtf8("x\xFF"), 1u);
}

}  // namespace
}  // namespace tokvec
