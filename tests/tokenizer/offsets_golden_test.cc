// Offsets of tokenizer.json files against Hugging Face tokenizers 0.23.2 on non-ASCII text: the goldens of
// tests/data/offsets/golden.json (made by scripts/gen_offsets_goldens.mjs with the npm peer: ids and byte
// offsets, for byte-level, WordPiece, SentencePiece-style BPE and Unigram files with length-changing
// normalizers), and tokenizer/text/character_offsets.h's rounding on its own.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/text/character_offsets.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name; }

TEST(OffsetsGoldenTest, HuggingFaceOffsetsOnNonAsciiText) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("offsets/golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  const Json golden = Json::parse(*text);
  ASSERT_GE(golden["cases"].size(), 100u);
  EncodeOptions all;
  all.allow_all_special = true;
  std::string loaded_name;
  std::unique_ptr<Tokenizer> tokenizer;
  for (const auto& c : golden["cases"]) {
    const std::string file = c["file"].get<std::string>();
    if (file != loaded_name) {
      absl::StatusOr<std::unique_ptr<Tokenizer>> loaded = Tokenizer::Load(DataPath(file));
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      tokenizer = std::move(loaded).value();
      loaded_name = file;
    }
    const std::string input = c["text"].get<std::string>();
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(input, all);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(encoding->ids, c["ids"].get<std::vector<TokenId>>()) << file << " " << input;
    std::vector<std::pair<size_t, size_t>> offsets;
    for (const Offset& offset : encoding->offsets) offsets.emplace_back(offset.begin, offset.end);
    EXPECT_EQ(offsets, (c["offsets"].get<std::vector<std::pair<size_t, size_t>>>())) << file << " " << input;
  }
}

// Hugging Face observed (tokenizers 0.23.2): falcon.json's four byte tokens of "😀" all get [0, 4].
TEST(OffsetsGoldenTest, ByteTokensOfOneCharacterCoverIt) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("pretok/falcon.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode("\xF0\x9F\x98\x80");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  ASSERT_EQ(encoding->offsets.size(), 4u);
  for (const Offset& offset : encoding->offsets) {
    EXPECT_EQ(offset.begin, 0u);
    EXPECT_EQ(offset.end, 4u);
  }
}

// Invalid UTF-8 (which Hugging Face cannot take) keeps byte offsets: each stray byte is its own character.
TEST(OffsetsGoldenTest, InvalidBytesKeepTheirOwnOffsets) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("pretok/falcon.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string input = "a\xE6\x97z\xA5";  // a truncated 日, z, a stray continuation byte
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(input);
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  size_t at = 0;
  for (const Offset& offset : encoding->offsets) {
    EXPECT_EQ(offset.begin, at);
    at = offset.end;
  }
  EXPECT_EQ(at, input.size());
}

// .tiktoken files keep byte offsets that tile the input (docs/tokenizers.md: a token covering part of a character gets the
// bytes it covers).
TEST(OffsetsGoldenTest, TiktokenFilesKeepByteOffsets) {
  const std::string model = std::string(TOKVEC_SHARED_DIR) + "/vocab/gpt2.tiktoken";
  if (!ReadFile(model).ok()) GTEST_SKIP() << model << " not found (set TOKVEC_SHARED_DIR)";
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(model);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode("\xE6\x97\xA5");  // 日: two tokens, E6 97 | A5
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  ASSERT_EQ(encoding->offsets.size(), 2u);
  EXPECT_EQ(encoding->offsets[0].end, encoding->offsets[1].begin);
}

TEST(CharacterOffsetsTest, WidensToWholeCharacters) {
  const std::string text = "a\xE6\x97\xA5" "b\xF0\x9F\x98\x80";  // a 日 b 😀
  auto widen = [&](size_t begin, size_t end) {
    WidenToCharacters(text, &begin, &end);
    return std::make_pair(begin, end);
  };
  EXPECT_EQ(widen(2, 3), std::make_pair(size_t{1}, size_t{4}));    // middle byte of 日
  EXPECT_EQ(widen(1, 2), std::make_pair(size_t{1}, size_t{4}));    // first byte
  EXPECT_EQ(widen(3, 4), std::make_pair(size_t{1}, size_t{4}));    // last byte
  EXPECT_EQ(widen(0, 2), std::make_pair(size_t{0}, size_t{4}));    // a and part of 日
  EXPECT_EQ(widen(4, 5), std::make_pair(size_t{4}, size_t{5}));    // b: ASCII unchanged
  EXPECT_EQ(widen(7, 9), std::make_pair(size_t{5}, size_t{9}));    // the end of 😀
  EXPECT_EQ(widen(0, 0), std::make_pair(size_t{0}, size_t{0}));    // empty between characters: left alone
  EXPECT_EQ(widen(4, 4), std::make_pair(size_t{4}, size_t{4}));
  EXPECT_EQ(widen(2, 2), std::make_pair(size_t{1}, size_t{4}));    // empty inside 日: the character
  EXPECT_EQ(widen(3, 99), std::make_pair(size_t{3}, size_t{99}));  // outside the text: left alone
}

TEST(CharacterOffsetsTest, IllFormedBytesAreTheirOwnCharacters) {
  const std::string text = "\xE6\x97z\xA5\xA5\xC3";  // truncated, stray continuation bytes, truncated
  auto widen = [&](size_t begin, size_t end) {
    WidenToCharacters(text, &begin, &end);
    return std::make_pair(begin, end);
  };
  EXPECT_EQ(widen(1, 2), std::make_pair(size_t{1}, size_t{2}));
  EXPECT_EQ(widen(3, 4), std::make_pair(size_t{3}, size_t{4}));
  EXPECT_EQ(widen(4, 5), std::make_pair(size_t{4}, size_t{5}));
  EXPECT_EQ(widen(5, 6), std::make_pair(size_t{5}, size_t{6}));
}

}  // namespace
}  // namespace tokvec
