// UTF-8 validation and U+FFFD substitution (tokenizer/utf8.h) against the examples of the Unicode Standard 15.0,
// chapter 3.9, Tables 3-8 to 3-12 ("U+FFFD Substitution of Maximal Subparts"); Python's
// bytes.decode("utf-8", "replace") gives the same code points for each.
#include "tokenizer/utf8.h"

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

// The code points of `bytes` with each maximal subpart of an ill-formed sequence replaced by U+FFFD.
std::vector<char32_t> Lossy(std::string_view bytes) {
  std::vector<char32_t> out;
  for (size_t pos = 0; pos < bytes.size();) {
    if (Utf8SequenceLength(bytes, pos) > 0) {
      size_t len = 0;
      out.push_back(DecodeWellFormedUtf8(bytes, pos, &len));
      pos += len;
    } else {
      out.push_back(U'\uFFFD');
      pos += Utf8MaximalSubpart(bytes, pos);
    }
  }
  return out;
}

constexpr char32_t R = U'\uFFFD';

TEST(Utf8Test, MaximalSubpartsAsTheUnicodeStandardsTables) {
  // Table 3-8: a truncated 4-byte and 3-byte sequence, a lone lead, lone continuations.
  EXPECT_EQ(Lossy("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            (std::vector<char32_t>{U'a', R, R, R, U'b', R, U'c', R, R, U'd'}));
  // Table 3-9: non-shortest forms: every byte on its own.
  EXPECT_EQ(Lossy("\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41"), (std::vector<char32_t>{R, R, R, R, R, R, R, R, U'A'}));
  // Table 3-10: surrogates.
  EXPECT_EQ(Lossy("\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41"), (std::vector<char32_t>{R, R, R, R, R, R, R, R, U'A'}));
  // Table 3-11: above U+10FFFF, FF.
  EXPECT_EQ(Lossy("\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42"),
            (std::vector<char32_t>{R, R, R, R, R, U'A', R, R, U'B'}));
  // Table 3-12: truncated sequences, one U+FFFD each.
  EXPECT_EQ(Lossy("\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41"), (std::vector<char32_t>{R, R, R, R, U'A'}));
}

TEST(Utf8Test, MaximalSubpartStopsAtTheEnd) {
  EXPECT_EQ(Utf8MaximalSubpart("\xF0\x9F\x98", 0), 3u);  // 😀 without its last byte
  EXPECT_EQ(Utf8MaximalSubpart("\xF0", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x98\x80", 0), 4u);
}

}  // namespace
}  // namespace tokvec
