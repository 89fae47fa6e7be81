// GPT-2's vocab.json + merges.txt: the shared files give tiktoken's gpt2 ids; malformed files name the line.
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include <string>

#include "gtest/gtest.h"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;

TEST(Gpt2FilesTest, SharedVocabGivesTiktokensGpt2Ids) {
  std::optional<std::string> vocab = testing::SharedVocabPath("gpt2/vocab.json");
  if (!vocab) GTEST_SKIP() << "gpt2/vocab.json not in the shared vocab folder";
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*vocab);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_EQ((*tokenizer)->bpe().merges().size(), 50000u);
  EXPECT_EQ((*tokenizer)->FindSpecial("<|endoftext|>"), std::optional<TokenId>(50256));
  size_t checked = 0;
  for (const testing::GoldenCase& golden : testing::TiktokenGoldens()) {
    if (golden.encoding != "gpt2") continue;
    absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(golden.text);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(testing::DescribeIdMismatch(**tokenizer, golden.ids, encoding->ids), "") << "'" << golden.text << "'";
    ++checked;
  }
  EXPECT_GE(checked, 20u);
}

TEST(Gpt2FilesTest, RandomBytesRoundTrip) {
  std::optional<std::string> vocab = testing::SharedVocabPath("gpt2/vocab.json");
  if (!vocab) GTEST_SKIP() << "gpt2/vocab.json not in the shared vocab folder";
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*vocab);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  std::mt19937 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    // A quarter of the bytes random (mostly ill-formed UTF-8), the rest printable ASCII.
    std::string text(rng() % 80, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 0x20 + rng() % 0x60);
    absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoding->ids);
    ASSERT_TRUE(decoded.ok());
    EXPECT_TRUE(*decoded == text) << "trial " << trial;
    // Offsets tile the input.
    size_t at = 0;
    for (const Offset& offset : encoding->offsets) {
      EXPECT_EQ(offset.begin, at);
      at = offset.end;
    }
    EXPECT_EQ(at, text.size());
  }
}

class Gpt2FilesErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tokvec_gpt2_files_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  absl::Status Read(const std::string& vocab, const std::string& merges) {
    std::ofstream(dir_ / "vocab.json") << vocab;
    std::ofstream(dir_ / "merges.txt") << merges;
    return ReadGpt2VocabAndMerges((dir_ / "vocab.json").string(), (dir_ / "merges.txt").string()).status();
  }
  fs::path dir_;
};

TEST_F(Gpt2FilesErrorTest, MergeNamingAnUnknownTokenNamesTheLine) {
  absl::Status status = Read(R"({"a": 0, "b": 1, "ab": 2})", "#version: 0.2\na b\na c\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("merges.txt:3:"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("'c'"), absl::string_view::npos) << status;
}

TEST_F(Gpt2FilesErrorTest, MergeMakingAnUnknownTokenNamesTheLine) {
  absl::Status status = Read(R"({"a": 0, "b": 1})", "#version: 0.2\na b\n");
  EXPECT_NE(status.message().find("merges.txt:2:"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("'ab'"), absl::string_view::npos) << status;
}

TEST_F(Gpt2FilesErrorTest, MalformedMergeLineNamesTheLine) {
  absl::Status status = Read(R"({"a": 0, "b": 1, "ab": 2})", "a b c\n");
  EXPECT_NE(status.message().find("merges.txt:1:"), absl::string_view::npos) << status;
}

TEST_F(Gpt2FilesErrorTest, TruncatedVocabJsonNamesTheFile) {
  absl::Status status = Read(R"({"a": 0, "b": )", "a b\n");
  EXPECT_NE(status.message().find("vocab.json"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("JSON"), absl::string_view::npos) << status;
  status = Read(R"({"a": 0, "b": "one"})", "");
  EXPECT_NE(status.message().find("'b'"), absl::string_view::npos) << status;
}

TEST_F(Gpt2FilesErrorTest, SpellingOutsideTheByteAlphabetNamesTheToken) {
  absl::Status status = Read(R"({"a": 0, "\u4e00": 1})", "");  // U+4E00 spells no byte.
  EXPECT_NE(status.message().find("byte-to-unicode"), absl::string_view::npos) << status;
}

}  // namespace
}  // namespace tokvec
