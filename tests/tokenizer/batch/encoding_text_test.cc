// The formats of tokenizer/batch/encoding_text.h, checked by hand on GPT-2's "Hello world" (ids 15496 995, spelled
// `Hello` `Ġworld`), and the id writer against a plain std::to_string join across its 4 KB buffer.
#include "tokenizer/batch/encoding_text.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string Gpt2Path() { return std::string(TOKVEC_SHARED_DIR) + "/vocab/gpt2.tiktoken"; }

// GPT-2's tokenizer; null when the shared data is absent (the tests then skip).
std::unique_ptr<Tokenizer> Gpt2() {
  if (!std::filesystem::exists(Gpt2Path())) return nullptr;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(Gpt2Path());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(*tokenizer) : nullptr;
}

std::string Line(const Tokenizer& tokenizer, const Encoding& encoding, EncodingTextFormat format) {
  std::string out;
  AppendEncoding(tokenizer, encoding, format, &out);
  return out;
}

TEST(EncodingTextTest, EachFormatOfHelloWorld) {
  std::unique_ptr<Tokenizer> gpt2 = Gpt2();
  if (!std::filesystem::exists(Gpt2Path())) GTEST_SKIP() << Gpt2Path() << " not found (the shared data)";
  ASSERT_NE(gpt2, nullptr);
  const Encoding encoding{.ids = {15496, 995}, .offsets = {{0, 5}, {5, 11}}};
  EXPECT_EQ(Line(*gpt2, encoding, EncodingTextFormat::kIds), "15496 995\n");
  EXPECT_EQ(Line(*gpt2, encoding, EncodingTextFormat::kTokens), "Hello Ġworld\n");
  EXPECT_EQ(Line(*gpt2, encoding, EncodingTextFormat::kReadable), "Hello ␣world\n");
  EXPECT_EQ(Line(*gpt2, encoding, EncodingTextFormat::kJson),
            "{\"ids\": [15496, 995], \"tokens\": [\"Hello\", \"Ġworld\"], \"offsets\": [[0, 5], [5, 11]]}\n");
  EXPECT_EQ(Line(*gpt2, Encoding{}, EncodingTextFormat::kJson), "{\"ids\": [], \"tokens\": [], \"offsets\": []}\n");
  EXPECT_EQ(Line(*gpt2, Encoding{}, EncodingTextFormat::kIds), "\n");
  EXPECT_EQ(SpellAll(*gpt2, encoding.ids, EncodingTextFormat::kIds), "15496 995");
  EXPECT_EQ(SpellAll(*gpt2, encoding.ids, EncodingTextFormat::kReadable), "Hello ␣world");
  // A tiktoken file has no post-processor: add_special_tokens adds nothing.
  EXPECT_TRUE(SpecialIdsBefore(*gpt2).empty());
  EXPECT_TRUE(SpecialIdsAfter(*gpt2).empty());
}

TEST(EncodingTextTest, JsonStringEscapesAndReplacesBytesThatAreNotUtf8) {
  std::string out;
  AppendJsonString(std::string("a\"b\\c\x01\n\tcaf\xC3\xA9 \xFF", 15), &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\u0001\\u000a\\u0009café \\ufffd\"");
}

TEST(EncodingTextTest, IdsMatchAPlainJoinAcrossTheBuffer) {
  std::vector<TokenId> ids;
  std::string expected;
  for (TokenId id = 0; id < 3000; ++id) {  // about 20 KB of text: the 4 KB buffer is flushed several times
    ids.push_back(id * 1409 % 200000);
    expected += ' ';
    expected += std::to_string(ids.back());
  }
  std::string with_space;
  AppendIds(ids.data(), ids.size(), /*space_first=*/true, &with_space);
  EXPECT_EQ(with_space, expected);
  std::string without_space = "x";
  AppendIds(ids.data(), ids.size(), /*space_first=*/false, &without_space);
  EXPECT_EQ(without_space, std::string("x").append(expected, 1));
  std::string none;
  AppendIds(ids.data(), 0, /*space_first=*/false, &none);
  EXPECT_EQ(none, "");
  AppendNumber(18446744073709551615u, &none);
  EXPECT_EQ(none, "18446744073709551615");
}

}  // namespace
}  // namespace tokvec
