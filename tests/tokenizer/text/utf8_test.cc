// UTF-8 validation and U+FFFD substitution (tokenizer/text/utf8.h) against the examples of the Unicode Standard 15.0,
// chapter 3.9, Tables 3-8 to 3-12 ("U+FFFD Substitution of Maximal Subparts"); Python's
// bytes.decode("utf-8", "replace") gives the same code points for each.
#include "tokenizer/text/utf8.h"

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tokenizer/icu_utf8_oracle.h"

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

// Utf8ValidEnd checks blocks of 32 bytes with AVX2 where the CPU has it: every pair of bytes, with a third (and
// for a 4-byte lead a fourth) from a set of kinds and ASCII after them, at each place around a block boundary and
// inside a block, from starts before it, against ICU and against the byte loop.
TEST(Utf8Test, ValidEndOfEveryPairAroundABlockBoundaryAsIcu) {
  const unsigned char thirds[] = {0x41, 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC3, 0xE2, 0xF0};
  const unsigned char fourths[] = {0x41, 0x80, 0xBF, 0xC3};
  std::string text;
  size_t checked = 0;
  for (size_t at : {29u, 30u, 31u, 32u, 45u, 63u}) {
    for (int b1 = 0x80; b1 < 0x100; ++b1) {
      for (int b2 = 0; b2 < 0x100; ++b2) {
        for (unsigned char b3 : thirds) {
          for (unsigned char b4 : fourths) {
            if (b1 < 0xF0 && b4 != 0x41) continue;
            text.assign(100, 'a');
            text[at] = static_cast<char>(b1);
            text[at + 1] = static_cast<char>(b2);
            text[at + 2] = static_cast<char>(b3);
            text[at + 3] = static_cast<char>(b4);
            for (size_t pos : {size_t{0}, size_t{1}}) {
              const size_t expected = IcuValidEnd(text, pos);
              ASSERT_EQ(Utf8ValidEnd(text, pos), expected) << at << " " << b1 << " " << b2 << " " << int{b3};
              ASSERT_EQ(Utf8ValidEndPortable(text, pos), expected) << at << " " << b1 << " " << b2;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 3'000'000u);
}

// Random texts of well-formed characters of every length, cut sequences and stray bytes, from random starts.
TEST(Utf8Test, ValidEndOfRandomMixedTextsAsIcu) {
  const std::vector<std::string> parts = {"a",  " ",  "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE6\x97\xA5",
                                          "\xD0\xB6", "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBF", "\xE0\xA0\x80"};
  const std::vector<std::string> bad = {"\x80", "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xED\xA0\x80", "\xC0\xAF", "\xF5\x80",
                                        "\xFF", "\xF4\x90\x80\x80", "\xE0\x9F\xBF"};
  std::mt19937 random(7);
  size_t ill_formed = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const size_t length = random() % 300;
    const bool clean = random() % 4 == 0;
    while (text.size() < length) {
      if (!clean && random() % 97 == 0) {
        text += bad[random() % bad.size()];
      } else {
        const size_t kinds = random() % 3 == 0 ? parts.size() : 3;  // mostly ASCII
        text += parts[random() % kinds];
      }
    }
    const size_t pos = text.empty() ? 0 : random() % (text.size() / 2 + 1);
    const size_t expected = IcuValidEnd(text, pos);
    ill_formed += expected < text.size();
    ASSERT_EQ(Utf8ValidEnd(text, pos), expected) << round;
    ASSERT_EQ(Utf8ValidEndPortable(text, pos), expected) << round;
  }
  EXPECT_GT(ill_formed, 5000u);  // both kinds were tried
}

}  // namespace
}  // namespace tokvec
