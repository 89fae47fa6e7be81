// ReadableBytes / ReadableToken (tokenizer/readable_token.h): spaces, newlines, tabs, control bytes, split and
// whole UTF-8 characters, special tokens, against GPT-2's byte-to-unicode spelling.
#include "tokenizer/readable_token.h"

#include <string>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

TEST(ReadableBytesTest, MarksWhatWouldBeInvisible) {
  EXPECT_EQ(ReadableBytes(" cat"), "␣cat");
  EXPECT_EQ(ReadableBytes("  "), "␣␣");
  EXPECT_EQ(ReadableBytes("\n"), "⏎");
  EXPECT_EQ(ReadableBytes("\r\n"), "\\r⏎");
  EXPECT_EQ(ReadableBytes("\tx"), "\\tx");
  EXPECT_EQ(ReadableBytes(std::string("\x00\x1b\x7f", 3)), "<0x00><0x1B><0x7F>");
  EXPECT_EQ(ReadableBytes("caf\xC3\xA9"), "café");
  EXPECT_EQ(ReadableBytes("\xE6\x97\xA5\xE6\x9C\xAC"), "日本");
  EXPECT_EQ(ReadableBytes("\xF0\x9F\x98\x80"), "😀");
  EXPECT_EQ(ReadableBytes("\xE6"), "<0xE6>");            // the first byte of 日 alone
  EXPECT_EQ(ReadableBytes("\x97\xA5"), "<0x97><0xA5>");  // its continuation bytes
  EXPECT_EQ(ReadableBytes("\xC0\xAF"), "<0xC0><0xAF>");  // an overlong '/': not a character
  EXPECT_EQ(ReadableBytes("\xED\xA0\x80"), "<0xED><0xA0><0x80>");  // a UTF-16 surrogate
  EXPECT_EQ(ReadableBytes("\xF4\x90\x80\x80"), "<0xF4><0x90><0x80><0x80>");  // above U+10FFFF
  EXPECT_EQ(ReadableBytes(""), "");
}

}  // namespace
}  // namespace tokvec
