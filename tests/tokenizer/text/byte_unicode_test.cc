#include "tokenizer/text/byte_unicode.h"

#include "gtest/gtest.h"

namespace tokvec {
namespace {

TEST(ByteUnicodeTest, MatchesGpt2Spelling) {
  // Spellings as they appear in GPT-2's published vocab.json / merges.txt.
  EXPECT_EQ(BytesToUnicode(" the"), "\xC4\xA0the");  // "Ġthe"
  EXPECT_EQ(BytesToUnicode("\n"), "\xC4\x8A");       // "Ċ"
  EXPECT_EQ(BytesToUnicode("\t"), "\xC4\x89");       // "ĉ"
  EXPECT_EQ(BytesToUnicode("A"), "A");
}

TEST(ByteUnicodeTest, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  std::optional<std::string> back = UnicodeToBytes(BytesToUnicode(all));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, all);
  EXPECT_FALSE(UnicodeToBytes("\xE4\xB8\x80").has_value());  // U+4E00 spells no byte.
}

}  // namespace
}  // namespace tokvec
