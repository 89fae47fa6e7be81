// BertPreTokenizer: white space cuts and is dropped; each punctuation code point is a piece of its own.
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenizer/text/bert_unicode.h"

namespace tokvec {
namespace {

std::vector<std::string> Pieces(std::string_view text) {
  BertPreTokenizer pre_tokenizer;
  std::vector<Piece> pieces;
  absl::Status status = pre_tokenizer.Split(text, &pieces);
  EXPECT_TRUE(status.ok()) << status;
  std::vector<std::string> out;
  for (const Piece& piece : pieces) out.emplace_back(text.substr(piece.begin, piece.end - piece.begin));
  return out;
}

TEST(BertPreTokenizerTest, WhiteSpaceCutsAndPunctuationStandsAlone) {
  EXPECT_EQ(Pieces("Hi, you!"), (std::vector<std::string>{"Hi", ",", "you", "!"}));
  EXPECT_EQ(Pieces("  a\t\nb  "), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Pieces("don't"), (std::vector<std::string>{"don", "'", "t"}));
  EXPECT_EQ(Pieces("..."), (std::vector<std::string>{".", ".", "."}));  // One piece per code point, not per run.
  EXPECT_EQ(Pieces("$5+3=8"), (std::vector<std::string>{"$", "5", "+", "3", "=", "8"}));  // ASCII symbols too.
  EXPECT_EQ(Pieces(""), (std::vector<std::string>{}));
}

TEST(BertPreTokenizerTest, UnicodePunctuationAndSpaces) {
  // 、 and 。 are punctuation (Po); U+3000 and U+00A0 are white space; ¿ and « are punctuation.
  EXPECT_EQ(Pieces("猫、犬。\u3000a\u00a0b"), (std::vector<std::string>{"猫", "、", "犬", "。", "a", "b"}));
  EXPECT_EQ(Pieces("¿qué? «x»"), (std::vector<std::string>{"¿", "qué", "?", "«", "x", "»"}));
  // Symbols that are not punctuation stay in the word: € (Sc), ° (So).
  EXPECT_EQ(Pieces("5€ 3°"), (std::vector<std::string>{"5€", "3°"}));
}

TEST(BertPreTokenizerTest, ClassesFollowHuggingFaceNotIcu) {
  // U+2E43 (dash with left-upturn, Unicode 9.0 Po) is punctuation for ICU but not in Hugging Face's tables.
  EXPECT_FALSE(IsBertPunctuation(0x2E43));
  EXPECT_TRUE(IsBertPunctuation(U'!'));
  EXPECT_TRUE(IsBertPunctuation(U'`'));
  EXPECT_TRUE(IsBertPunctuation(0x2014));  // — em dash
  EXPECT_FALSE(IsBertPunctuation(U'a'));
  EXPECT_TRUE(IsChineseChar(U'猫'));
  EXPECT_FALSE(IsChineseChar(U'ね'));
  EXPECT_TRUE(IsBertDropped(0x200B));   // zero width space (Cf)
  EXPECT_TRUE(IsBertDropped(0));
  EXPECT_TRUE(IsBertDropped(0xFFFD));
  EXPECT_FALSE(IsBertDropped(U'\t'));
  EXPECT_TRUE(IsNonspacingMark(0x0301));
  EXPECT_FALSE(IsNonspacingMark(U'e'));
}

TEST(BertPreTokenizerTest, InvalidUtf8NamesTheOffset) {
  BertPreTokenizer pre_tokenizer;
  std::vector<Piece> pieces;
  absl::Status status = pre_tokenizer.Split("ab \xff", &pieces);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("byte offset 3"), std::string::npos) << status;
}

}  // namespace
}  // namespace tokvec
