// .tiktoken ranks: tiktoken's golden ids for gpt2, cl100k_base and o200k_base, byte-exact rewriting, load time,
// linear time on pathological input, and malformed files.
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using testing::DescribeIdMismatch;
using testing::SharedVocabPath;

std::unique_ptr<Tokenizer> LoadShared(const std::string& encoding) {
  std::optional<std::string> path = SharedVocabPath(encoding + ".tiktoken");
  if (!path) return nullptr;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*path);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

TEST(TiktokenFileTest, MatchesTiktokenGoldens) {
  std::vector<testing::GoldenCase> goldens = testing::TiktokenGoldens();
  ASSERT_GE(goldens.size(), 60u) << "tests/data/tiktoken_goldens.json is missing or short";
  std::map<std::string, std::unique_ptr<Tokenizer>> tokenizers;
  size_t checked = 0;
  for (const testing::GoldenCase& golden : goldens) {
    if (!tokenizers.contains(golden.encoding)) tokenizers[golden.encoding] = LoadShared(golden.encoding);
    const Tokenizer* tokenizer = tokenizers[golden.encoding].get();
    if (tokenizer == nullptr) continue;
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(golden.text);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(DescribeIdMismatch(*tokenizer, golden.ids, encoding->ids), "")
        << golden.encoding << " on '" << golden.text << "'";
    absl::StatusOr<std::string> decoded = tokenizer->Decode(encoding->ids);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, golden.text);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no .tiktoken files in " << TOKVEC_SHARED_DIR << "/vocab (or TOKVEC_VOCAB_DIR)";
}

TEST(TiktokenFileTest, SpecialTokensComeFromTheFileName) {
  std::unique_ptr<Tokenizer> tokenizer = LoadShared("cl100k_base");
  if (tokenizer == nullptr) GTEST_SKIP() << "cl100k_base.tiktoken not in the shared vocab folder";
  EXPECT_EQ(tokenizer->FindSpecial("<|endoftext|>"), std::optional<TokenId>(100257));
  EXPECT_EQ(tokenizer->FindSpecial("<|endofprompt|>"), std::optional<TokenId>(100276));
  EXPECT_EQ(tokenizer->vocab_size(), 100277u);  // tiktoken's n_vocab for cl100k_base.
  absl::StatusOr<Encoding> allowed = tokenizer->Encode("a<|endoftext|>", {.allow_all_special = true});
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(allowed->ids, (std::vector<TokenId>{64, 100257}));  // tiktoken: enc.encode("a<|endoftext|>", allowed_special="all")
}

TEST(TiktokenFileTest, WritesTheFileBackByteForByte) {
  std::optional<std::string> path = SharedVocabPath("cl100k_base.tiktoken");
  if (!path) GTEST_SKIP() << "cl100k_base.tiktoken not in the shared vocab folder";
  absl::StatusOr<std::string> original = ReadFile(*path);
  ASSERT_TRUE(original.ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::string> written = WriteTiktoken(**tokenizer);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_TRUE(*written == *original) << "written .tiktoken differs from the official file";
}

TEST(TiktokenFileTest, LoadsO200kWellUnder100Milliseconds) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NDEBUG)
  GTEST_SKIP() << "timing is only meaningful in optimized, unsanitized builds";
#endif
  std::optional<std::string> path = SharedVocabPath("o200k_base.tiktoken");
  if (!path) GTEST_SKIP() << "o200k_base.tiktoken not in the shared vocab folder";
  double best_ms = 1e9;
  for (int run = 0; run < 3; ++run) {
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(*path);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    best_ms = std::min(best_ms, ms);
  }
  std::printf("o200k_base.tiktoken loads in %.1f ms (best of 3)\n", best_ms);
  EXPECT_LT(best_ms, 100.0);
}

TEST(TiktokenFileTest, RandomBytesRoundTrip) {
  std::unique_ptr<Tokenizer> tokenizer = LoadShared("o200k_base");
  if (tokenizer == nullptr) GTEST_SKIP() << "o200k_base.tiktoken not in the shared vocab folder";
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::string text(rng() % 64, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 0x20 + rng() % 0x60);
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(text);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    absl::StatusOr<std::string> decoded = tokenizer->Decode(encoding->ids);
    ASSERT_TRUE(decoded.ok());
    EXPECT_TRUE(*decoded == text) << "trial " << trial;
  }
}

// Errors name the file and line.
absl::Status ReadError(std::string_view text, const std::string& path = "gpt2.tiktoken") {
  return ReadTiktoken(text, path, "").status();
}

TEST(TiktokenFileTest, BadBase64NamesTheLine) {
  absl::Status status = ReadError("YQ== 0\nY*== 1\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("gpt2.tiktoken:2:"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("base64"), absl::string_view::npos) << status;
}

TEST(TiktokenFileTest, BadRankNamesTheLine) {
  absl::Status status = ReadError("YQ== 0\nYg== 1\nYw== x2\n");
  EXPECT_NE(status.message().find("gpt2.tiktoken:3:"), absl::string_view::npos) << status;
  status = ReadError("YQ==\n");
  EXPECT_NE(status.message().find("gpt2.tiktoken:1:"), absl::string_view::npos) << status;
}

TEST(TiktokenFileTest, DuplicatesNameBothLines) {
  absl::Status rank = ReadError("YQ== 0\nYg== 0\n");
  EXPECT_NE(rank.message().find("gpt2.tiktoken:2: rank 0 is already given on line 1"), absl::string_view::npos)
      << rank;
  absl::Status token = ReadError("YQ== 0\nYg== 1\nYQ== 2\n");
  EXPECT_NE(token.message().find("gpt2.tiktoken:3:"), absl::string_view::npos) << token;
  EXPECT_NE(token.message().find("line 1"), absl::string_view::npos) << token;
}

TEST(TiktokenFileTest, UnknownEncodingNeedsAPattern) {
  absl::Status status = ReadError("YQ== 0\n", "mine.tiktoken");
  EXPECT_NE(status.message().find("'mine'"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("--pattern"), absl::string_view::npos) << status;
  absl::StatusOr<TokenizerSpec> spec = ReadTiktoken("YQ== 0\nYg== 1\nYWI= 2\n", "mine.tiktoken", "cl100k");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->pre_tokenizer->name(), "cl100k");
  EXPECT_TRUE(spec->special_tokens.empty());
}

TEST(TiktokenFileTest, SmallRankFileEncodesByTiktokensRule) {
  // Ranks a=0 b=1 c=2 bc=3 ab=4 abc=5: "abc" is a whole token (looked up first); in "abcb" b+c merges first
  // (rank 3, below ab's 4), then a+bc spells abc (rank 5): [abc, b].
  absl::StatusOr<TokenizerSpec> spec = ReadTiktoken("YQ== 0\nYg== 1\nYw== 2\nYmM= 3\nYWI= 4\nYWJj 5\n", "x", "o200k");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(spec).value());
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_EQ((*tokenizer)->Encode("abc")->ids, (std::vector<TokenId>{5}));
  EXPECT_EQ((*tokenizer)->Encode("abcb")->ids, (std::vector<TokenId>{5, 1}));
  EXPECT_EQ((*tokenizer)->Encode("cab")->ids, (std::vector<TokenId>{2, 4}));
}

}  // namespace
}  // namespace tokvec
