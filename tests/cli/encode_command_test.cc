// `tokvec encode` / `decode` / `inspect` through the real binary, on a small word model trained by the CLI.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/model_cli_testutil.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunShell;
using testing::ScratchDir;
using testing::ShellResult;
using testing::Tokvec;
using testing::WriteWhole;

class EncodeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteWhole(dir_ / "corpus.txt", "low lower newest wider\n");
    ShellResult r = RunShell(fmt::format("{} train --merges 4 --special '<s>' -o {} {}", Tokvec(), Model(),
                                         dir_ / "corpus.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string Model() const { return dir_ / "seed.tokvec"; }
  ShellResult Encode(const std::string& input, const std::string& flags) {
    WriteWhole(dir_ / "input.txt", input);
    return RunShell(fmt::format("{} encode -m {} {} {}", Tokvec(), Model(), flags, dir_ / "input.txt"));
  }
  ScratchDir dir_;
};

// Ids: <s> 0, <unk> 1, </w> 2, d e i l n o r s t w = 3..12, er 13, er</w> 14, lo 15, low 16.
TEST_F(EncodeCommandTest, IdsTokensJson) {
  ShellResult r = Encode("low lower\n", "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "16 2 16 14\n");
  r = Encode("low lower\n", "--format tokens");
  EXPECT_EQ(r.out, "low </w> low er</w>\n");
  r = Encode("low lower\n", "--format json");
  EXPECT_EQ(r.out,
            "{\"ids\": [16, 2, 16, 14], \"tokens\": [\"low\", \"</w>\", \"low\", \"er</w>\"], "
            "\"offsets\": [[0, 3], [3, 3], [4, 7], [7, 9]]}\n");
  r = Encode("", "");
  EXPECT_EQ(r.out, "\n");
}

TEST_F(EncodeCommandTest, UnknownSymbolsAndSpecialTokens) {
  ShellResult r = Encode("lox <s>", "--tokens");
  EXPECT_EQ(r.out, "lo <unk> </w> <unk> s <unk> </w>\n");  // '<' and '>' are not in the alphabet.
  r = Encode("lox <s>", "--tokens --allow-special");
  EXPECT_EQ(r.out, "lo <unk> </w> <s>\n");
  r = Encode("low<s>low", "--allow-special='<s>'");
  EXPECT_EQ(r.out, "16 2 0 16 2\n");
  r = Encode("low", "--allow-special='<t>'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: '<t>' is not a special token of this model"));
}

// --lines: one output line per input line; "\r\n" ends a line like "\n"; a last line without newline counts.
TEST_F(EncodeCommandTest, LinesStreamedOverThreadsKeepOrder) {
  ShellResult r = Encode("low\r\n\nwider lower\nnew", "--lines --tokens");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "low </w>\n\nw i d er</w> low er</w>\nn e w </w>\n");
  std::string many;
  std::string expected;
  for (int i = 0; i < 30000; ++i) {
    many += i % 3 == 0 ? "low\n" : i % 3 == 1 ? "lower newest\r\n" : "wider\n";
    expected += i % 3 == 0 ? "16 2\n" : i % 3 == 1 ? "16 14 7 4 12 4 10 11 2\n" : "12 5 3 14\n";
  }
  for (const char* threads : {"1", "2", "8"}) {
    r = Encode(many, fmt::format("--lines --threads {}", threads));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out == expected) << threads << " threads: output differs";
  }
  r = Encode("low\n", "--lines --format json");
  EXPECT_EQ(r.out, "{\"ids\": [16, 2], \"tokens\": [\"low\", \"</w>\"], \"offsets\": [[0, 3], [3, 3]]}\n");
}

TEST_F(EncodeCommandTest, DecodeRoundTripAndErrors) {
  ShellResult r = RunShell(fmt::format("printf '16 2 16 14\\n 7 4 12 2' | {} decode -m {}", Tokvec(), Model()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "low lower new");
  r = RunShell(fmt::format("echo '0 16 2' | {} decode -m {}", Tokvec(), Model()));
  EXPECT_EQ(r.out, "<s>low");
  r = RunShell(fmt::format("echo '16 2 x7' | {} decode -m {}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: 'x7' (position 3, byte offset 5) is not a token id"));
  r = RunShell(fmt::format("echo '16 17' | {} decode -m {}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: id 17 (position 2, byte offset 3) is outside the vocabulary; ids are 0..16"));
  r = RunShell(fmt::format("echo '99999999999999999999' | {} decode -m {}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("is outside the vocabulary"));
}

TEST_F(EncodeCommandTest, WriteErrorsAndUsage) {
  ShellResult r = RunShell(fmt::format("{{ echo low | {} encode -m {} > /dev/full; }}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: cannot write to 'standard output'"));
  r = RunShell(fmt::format("{{ echo low | {} encode -m {} --lines > /dev/full; }}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  r = RunShell(fmt::format("{{ echo 16 | {} decode -m {} > /dev/full; }}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  r = RunShell(fmt::format("{{ {} inspect {} --merges > /dev/full; }}", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 1);
  r = RunShell(fmt::format("echo low | {} encode -m {} --format xml", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 2);
  r = RunShell(fmt::format("echo low | {} encode -m {} --tokens --format json", Tokvec(), Model()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--tokens is --format tokens"));
  r = RunShell(fmt::format("echo low | {} encode", Tokvec()));
  EXPECT_EQ(r.exit_code, 2);
  r = RunShell(fmt::format("echo low | {} encode -m {}", Tokvec(), dir_ / "missing.tokvec"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("missing.tokvec"));
}

// Invalid UTF-8 deep in a large input (past several chunks): the error names its offset in the whole input.
TEST_F(EncodeCommandTest, InvalidUtf8OffsetCountsFromTheStartOfTheInput) {
  std::string input;
  while (input.size() < (size_t{3} << 20)) input += "low lower newest\n";
  const size_t bad = input.size() + 4;
  input += "wide\xC3(\n";
  for (const char* threads : {"1", "2"}) {
    ShellResult r = Encode(input, fmt::format("--threads {}", threads));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr(fmt::format("error: invalid UTF-8 at byte offset {} (byte 0xC3)", bad))) << r.err;
  }
}

// `tokvec encode big | head`: when the reader goes away, tokvec stops quietly with 141 (as if killed by SIGPIPE),
// not with an error message.
TEST_F(EncodeCommandTest, ClosedPipeStopsQuietly) {
  std::string input;
  while (input.size() < (size_t{4} << 20)) input += "low lower newest wider\n";
  WriteWhole(dir_ / "big.txt", input);
  ShellResult r = RunShell(fmt::format("{{ {} encode -m {} {} 2> {}; echo $? > {}; }} | head -c 5", Tokvec(), Model(),
                                       dir_ / "big.txt", dir_ / "err.txt", dir_ / "status.txt"));
  EXPECT_EQ(r.out, "16 2 ");
  EXPECT_EQ(testing::ReadWhole(dir_ / "status.txt"), "141\n");
  EXPECT_EQ(testing::ReadWhole(dir_ / "err.txt"), "");
}

TEST_F(EncodeCommandTest, InspectSummary) {
  ShellResult r = RunShell(fmt::format("{} inspect {}", Tokvec(), Model()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("type: word"));
  EXPECT_THAT(r.out, HasSubstr("vocab_size: 17\n"));
  EXPECT_THAT(r.out, HasSubstr("merges: 4\n"));
  EXPECT_THAT(r.out, HasSubstr("alphabet: 10 code points\n"));
  EXPECT_THAT(r.out, HasSubstr("pre_tokenizer: whitespace\n"));
  EXPECT_THAT(r.out, HasSubstr("unk_id: 1\nend_of_word_id: 2\nspecial_tokens: 1\n  0 <s>\n"));
}

// Byte models: merges print in GPT-2's byte-to-unicode spelling, like merges.txt; any bytes round-trip.
TEST(EncodeByteModelTest, GptSpellingAndByteRoundTrip) {
  ScratchDir dir;
  std::string corpus;
  for (int i = 0; i < 50; ++i) corpus += "the cat sat on the mat\n";
  WriteWhole(dir / "corpus.txt", corpus);
  ShellResult r = RunShell(fmt::format("{} train --type byte --merges 3 -o {} {} && {} inspect --merges {}", Tokvec(),
                                       dir / "b.tokvec", dir / "corpus.txt", Tokvec(), dir / "b.tokvec"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Pieces "the", " cat", " sat", " on", " the", " mat": (a, t) 150, then (h, e) and (t, h) 100 each ('h' < 't').
  EXPECT_EQ(r.out, "a t\nh e\nt he\n");
  WriteWhole(dir / "spaces.txt", "x t t t\n");
  r = RunShell(fmt::format("{} train --type byte --merges 2 -o {} {} && {} inspect --merges {}", Tokvec(),
                           dir / "s.tokvec", dir / "spaces.txt", Tokvec(), dir / "s.tokvec"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Ġ t\n");  // Pieces "x", " t" x3, "\n": only (" ", "t") is a pair.
  std::string bytes = "caf\xE9 \xFF\x00\r\n日本 the";
  bytes.push_back('\0');
  WriteWhole(dir / "bytes.bin", bytes);
  r = RunShell(fmt::format("{} encode -m {} {} | {} decode -m {} | cmp - {}", Tokvec(), dir / "b.tokvec",
                           dir / "bytes.bin", Tokvec(), dir / "b.tokvec", dir / "bytes.bin"));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
}

// --tokens --readable: decoded text with ␣ for spaces, ⏎ for newlines, \t, and <0xE6> for bytes that are not a
// whole character; plain --tokens keeps GPT-2's spelling (Ġcat, Ċ).
TEST(EncodeByteModelTest, ReadableTokens) {
  const std::string vocab = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_gpt2_f32/vocab.json";
  ScratchDir dir;
  WriteWhole(dir / "in.txt", "a cat\n\tsat \xE6\x97\xA5");
  ShellResult r = RunShell(fmt::format("{} encode -m {} --tokens --readable {}", Tokvec(), vocab, dir / "in.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("␣cat"));
  EXPECT_THAT(r.out, HasSubstr("⏎"));
  EXPECT_THAT(r.out, HasSubstr("\\t"));
  EXPECT_THAT(r.out, HasSubstr("<0xE6>"));  // 日 is three byte tokens in this small vocabulary
  EXPECT_EQ(r.out.find("Ġ"), std::string::npos) << r.out;
  r = RunShell(fmt::format("{} encode -m {} --tokens {}", Tokvec(), vocab, dir / "in.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Ġcat"));
  EXPECT_THAT(r.out, HasSubstr("Ċ"));
  r = RunShell(fmt::format("{} encode -m {} --readable {}", Tokvec(), vocab, dir / "in.txt"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--readable shows tokens; use it with --tokens"));
}

// A text larger than several chunks (and than one batch of them for 1 and 2 threads: 4 MB per thread, so the
// buffers are refilled and the shared tables folded between batches) is cut at Tokenizer::FindCut points and
// spread over the workers: the output must be the library's encoding of the whole text, byte for byte, for any
// --threads, from a file or a pipe, for ids and token spellings.
TEST(EncodeChunkingTest, LargeTextEqualsTheWholeEncodingForAnyThreadCount) {
  const std::filesystem::path shared(TOKVEC_SHARED_DIR);
  if (!std::filesystem::exists(shared / "vocab" / "cl100k_base.tiktoken") ||
      !std::filesystem::exists(shared / "corpora" / "udhr")) {
    GTEST_SKIP() << "shared vocab/corpora not found under " << shared;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(shared / "corpora")) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& file : files) {
    absl::StatusOr<std::string> content = ReadFile(file.string());
    ASSERT_TRUE(content.ok());
    text += *content;
    if (text.size() > (size_t{10} << 20)) break;
  }
  ScratchDir dir;
  WriteWhole(dir / "text.txt", text);
  for (const char* name : {"gpt2", "cl100k_base"}) {
    const std::string vocab = (shared / "vocab" / (std::string(name) + ".tiktoken")).string();
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(vocab);
    ASSERT_TRUE(tokenizer.ok());
    absl::StatusOr<Encoding> whole = (*tokenizer)->Encode(text);
    ASSERT_TRUE(whole.ok());
    std::string expected;
    for (size_t i = 0; i < whole->ids.size(); ++i) expected += (i > 0 ? " " : "") + std::to_string(whole->ids[i]);
    expected += "\n";
    for (const char* threads : {"1", "2", "3"}) {
      ShellResult r = RunShell(fmt::format("{} encode -m {} --threads {} {}", Tokvec(), vocab, threads, dir / "text.txt"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_TRUE(r.out == expected) << name << " --threads " << threads << ": output differs from the whole encoding";
    }
    ShellResult piped = RunShell(fmt::format("cat {} | {} encode -m {} --threads 2", dir / "text.txt", Tokvec(), vocab));
    EXPECT_TRUE(piped.out == expected) << name << " from a pipe";
    std::string spelled;
    for (size_t i = 0; i < whole->ids.size(); ++i) spelled += (i > 0 ? " " : "") + (*tokenizer)->TokenSpelling(whole->ids[i]);
    ShellResult tokens = RunShell(fmt::format("{} encode -m {} --tokens --threads 2 {}", Tokvec(), vocab, dir / "text.txt"));
    EXPECT_TRUE(tokens.out == spelled + "\n") << name << " --tokens";
  }
}

}  // namespace
}  // namespace tokvec
