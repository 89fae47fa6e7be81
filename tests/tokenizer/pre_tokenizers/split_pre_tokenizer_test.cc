// Split patterns: tiktoken's presets on hand-checkable text, ill-formed UTF-8, custom regexes and their errors.
// (Whole-encoding parity with tiktoken is in tiktoken_format_test.cc and scripts/conformance.sh.)
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenizer/formats/spelled_vocab.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::vector<std::string> SplitText(const std::string& pattern, std::string_view text) {
  absl::StatusOr<std::unique_ptr<PreTokenizer>> splitter = MakeSplitPreTokenizer(pattern);
  EXPECT_TRUE(splitter.ok()) << splitter.status();
  std::vector<Piece> pieces;
  EXPECT_TRUE((*splitter)->Split(text, &pieces).ok());
  std::vector<std::string> out;
  for (const Piece& piece : pieces) out.emplace_back(text.substr(piece.begin, piece.end - piece.begin));
  return out;
}

using Pieces = std::vector<std::string>;

// Expected pieces follow tiktoken's regexes by hand (and agree with tiktoken's ids in the goldens).
TEST(SplitPatternTest, Gpt2Preset) {
  EXPECT_EQ(SplitText("gpt2", "Hello world!! It's  42"),
            (Pieces{"Hello", " world", "!!", " It", "'s", " ", " 42"}));
  EXPECT_EQ(SplitText("gpt2", "a\n\n b"), (Pieces{"a", "\n\n", " b"}));
  EXPECT_EQ(SplitText("r50k_base", "I'LL"), (Pieces{"I", "'", "LL"}));  // gpt2's contractions are lowercase only.
}

TEST(SplitPatternTest, Cl100kPreset) {
  EXPECT_EQ(SplitText("cl100k", "I'LL pay 1234567 dollars!\r\n\r\nok"),
            (Pieces{"I", "'LL", " pay", " ", "123", "456", "7", " dollars", "!\r\n\r\n", "ok"}));
  EXPECT_EQ(SplitText("cl100k_base", "x  \n  y"), (Pieces{"x", "  \n", " ", " y"}));
}

TEST(SplitPatternTest, O200kPreset) {
  EXPECT_EQ(SplitText("o200k", "CamelCaseHTTPServer don't"),
            (Pieces{"Camel", "Case", "HTTPServer", " don't"}));
  EXPECT_EQ(SplitText("o200k", "a/b//\n"), (Pieces{"a", "/b", "//\n"}));
}

TEST(SplitPatternTest, EveryIllFormedByteIsItsOwnPiece) {
  // \xFF never occurs in UTF-8; \xC3 without its continuation is truncated; \xED\xA0\x80 is a surrogate.
  EXPECT_EQ(SplitText("cl100k", "ab\xFF\xFF" "cd \xC3"), (Pieces{"ab", "\xFF", "\xFF", "cd", " ", "\xC3"}));
  EXPECT_EQ(SplitText("gpt2", "\xED\xA0\x80x"), (Pieces{"\xED", "\xA0", "\x80", "x"}));
}

TEST(SplitPatternTest, PiecesCoverRandomBytesInOrder) {
  std::mt19937 rng(3);
  for (const char* preset : {"gpt2", "cl100k", "o200k"}) {
    absl::StatusOr<std::unique_ptr<PreTokenizer>> splitter = MakeSplitPreTokenizer(preset);
    ASSERT_TRUE(splitter.ok());
    for (int trial = 0; trial < 200; ++trial) {
      std::string text(rng() % 100, '\0');
      for (char& c : text) c = static_cast<char>(rng() % 3 == 0 ? rng() % 256 : 0x20 + rng() % 0x60);
      std::vector<Piece> pieces;
      ASSERT_TRUE((*splitter)->Split(text, &pieces).ok());
      size_t at = 0;
      for (const Piece& piece : pieces) {
        ASSERT_EQ(piece.begin, at) << preset << " trial " << trial;
        ASSERT_LT(piece.begin, piece.end);
        at = piece.end;
      }
      EXPECT_EQ(at, text.size());
    }
  }
}

// Needs no shared data: a rank model of the 256 bytes plus a few merges, under each preset.
TEST(SplitPatternTest, RandomBytesRoundTripThroughAByteModel) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  for (const char* merged : {"ab", "abc", " a", "\xC3\xA9", "\xFF\xFF"}) tokens.emplace_back(merged);
  std::mt19937 rng(17);
  for (const char* preset : {"gpt2", "cl100k", "o200k"}) {
    TokenizerSpec spec = ByteLevelSpec(*BpeModel::FromRanks(tokens));
    spec.pre_tokenizer = *MakeSplitPreTokenizer(preset);
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(spec));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    for (int trial = 0; trial < 300; ++trial) {
      std::string text(rng() % 120, '\0');
      for (char& c : text) c = static_cast<char>(rng() % 2 == 0 ? rng() % 256 : "abc \xC3\xA9"[rng() % 6]);
      absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
      ASSERT_TRUE(encoding.ok()) << encoding.status();
      absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoding->ids);
      ASSERT_TRUE(decoded.ok());
      EXPECT_TRUE(*decoded == text) << preset << " trial " << trial;
    }
  }
}

TEST(SplitPatternTest, CustomRegexKeepsTextBetweenMatches) {
  EXPECT_EQ(SplitText("[0-9]+", "ab12cd345"), (Pieces{"ab", "12", "cd", "345"}));
  absl::StatusOr<std::unique_ptr<PreTokenizer>> splitter = MakeSplitPreTokenizer("[0-9]+");
  ASSERT_TRUE(splitter.ok());
  EXPECT_EQ((*splitter)->name(), "[0-9]+");
  EXPECT_EQ((*MakeSplitPreTokenizer("cl100k_base"))->name(), "cl100k");
}

TEST(SplitPatternTest, BadRegexNamesThePatternAndIcusError) {
  absl::StatusOr<std::unique_ptr<PreTokenizer>> splitter = MakeSplitPreTokenizer("(ab");
  ASSERT_FALSE(splitter.ok());
  EXPECT_EQ(splitter.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(splitter.status().message().find("'(ab'"), absl::string_view::npos) << splitter.status();
  EXPECT_NE(splitter.status().message().find("U_REGEX"), absl::string_view::npos) << splitter.status();
}

TEST(SplitPatternTest, WhiteSpaceIsUnicodeWhiteSpace) {
  // \s must be White_Space as in the Rust regex crates: VT (U+000B) and NEL (U+0085) included.
  EXPECT_EQ(SplitText("gpt2", "a\x0b\x0b" "b"), (Pieces{"a", "\x0b", "\x0b", "b"}));
  EXPECT_EQ(SplitText("\\s+", "a\xC2\x85" "b"), (Pieces{"a", "\xC2\x85", "b"}));
}

}  // namespace
}  // namespace tokvec
