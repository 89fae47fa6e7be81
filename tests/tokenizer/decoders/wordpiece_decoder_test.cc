// WordPieceDecoder: the join and cleanup rules of Hugging Face's WordPiece decoder (cases checked with
// tokenizers 0.23.2's wordPieceDecoder().decode).
#include "tokenizer/decoders/wordpiece_decoder.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

std::string Decode(const std::vector<std::string>& tokens, bool cleanup = true, std::string prefix = "##") {
  WordPieceDecoder decoder{std::move(prefix), cleanup};
  std::string text;
  for (size_t i = 0; i < tokens.size(); ++i) decoder.Append(tokens[i], i, &text);
  return text;
}

TEST(WordPieceDecoderTest, ContinuationsJoinOthersGetASpace) {
  EXPECT_EQ(Decode({"un", "##aff", "##able", "word"}), "unaffable word");
  EXPECT_EQ(Decode({"##a", "b", "##c", "##"}), "##a bc");  // The first token keeps its prefix; "##" alone is "".
  EXPECT_EQ(Decode({"a", "##x##y"}), "ax##y");               // Only the leading prefix goes.
}

TEST(WordPieceDecoderTest, CleanupPerToken) {
  EXPECT_EQ(Decode({"a", "."}), "a.");
  EXPECT_EQ(Decode({"x", "n't"}), "xn't");
  EXPECT_EQ(Decode({"it", "'", "s"}), "it ' s");  // " ' " never occurs within one token.
  EXPECT_EQ(Decode({"I", "do", "not"}), "I do not");  // " do not" spans tokens: untouched.
  EXPECT_EQ(Decode({"a b", "c ."}), "a b c.");        // Inside a token it is replaced.
  EXPECT_EQ(Decode({"a", "?"}), "a?");
  EXPECT_EQ(Decode({"a", "!"}), "a!");
  EXPECT_EQ(Decode({"a", ","}), "a,");
  EXPECT_EQ(Decode({"i", "'m"}), "i'm");
  EXPECT_EQ(Decode({"x", "z do not"}), "x z don't");
  EXPECT_EQ(Decode({"x", "'s"}), "x's");
  EXPECT_EQ(Decode({"x", "'ve"}), "x've");
  EXPECT_EQ(Decode({"x", "'re"}), "x're");
  EXPECT_EQ(Decode({"a", "."}, /*cleanup=*/false), "a .");
}

TEST(WordPieceDecoderTest, EmptyPrefixJoinsEverything) { EXPECT_EQ(Decode({"a", "b"}, true, ""), "ab"); }

}  // namespace
}  // namespace tokvec
