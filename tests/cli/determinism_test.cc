// Determinism: the same command gives byte-identical model files and outputs across runs and across --threads
// 1, 2 and 8 (train, encode, init, embed). Runs the real binary (TOKVEC_BINARY) on a seeded generated corpus.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/corpus_testutil.h"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;
using testing::RunOptions;
using testing::RunResult;
using testing::RunTokvec;

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::vector<std::string> kByteFlags = {"--type", "byte", "--pattern", "gpt2", "--vocab-size", "1500",
                                             "--special", "<|endoftext|>"};

class DeterminismTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("tokvec_determinism_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    // 2.5 MB in two files: enough that --threads splits the counting into several 1 MB chunks.
    std::ofstream(*dir_ / "corpus.txt", std::ios::binary) << testing::GenerateCorpus(/*seed=*/11, 2 << 20);
    std::ofstream(*dir_ / "more.txt", std::ios::binary) << testing::GenerateCorpus(/*seed=*/12, 512 << 10);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Path(const std::string& name) { return (*dir_ / name).string(); }

  // Runs tokvec and expects success; returns standard output.
  static std::string Run(const std::vector<std::string>& args) {
    RunOptions options;
    options.timeout_seconds = 600;
    RunResult r = RunTokvec(args, options);
    std::string command = "tokvec";
    for (const std::string& arg : args) command += " " + arg;
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.Describe();
    return r.out;
  }

  // Trains with each thread count (twice with 2) and expects identical model files; returns the model path.
  static std::string TrainEverywhere(const std::string& name, const std::vector<std::string>& flags) {
    std::string first_bytes, first_path;
    for (const char* threads : {"1", "2", "8", "2"}) {
      const std::string out = Path(name + "_t" + threads + (first_path.empty() ? "" : "_again") + ".tokvec");
      std::vector<std::string> args = {"train", "-o", out, "--threads", threads};
      args.insert(args.end(), flags.begin(), flags.end());
      args.push_back(Path("corpus.txt"));
      args.push_back(Path("more.txt"));
      Run(args);
      const std::string bytes = ReadBytes(out);
      EXPECT_FALSE(bytes.empty()) << out;
      if (first_path.empty()) {
        first_path = out;
        first_bytes = bytes;
      } else {
        EXPECT_TRUE(bytes == first_bytes) << out << " differs from " << first_path << " (--threads " << threads << ")";
      }
    }
    return first_path;
  }

  static fs::path* dir_;
};

fs::path* DeterminismTest::dir_ = nullptr;

TEST_F(DeterminismTest, WordTrainingAndEncodingIgnoreThreadCount) {
  const std::string model = TrainEverywhere("word", {"--type", "word", "--merges", "2000"});
  const std::string expected = Run({"encode", "-m", model, "--threads", "1", "--lines", Path("corpus.txt")});
  EXPECT_FALSE(expected.empty());
  for (const char* threads : {"2", "8"}) {
    EXPECT_TRUE(Run({"encode", "-m", model, "--threads", threads, "--lines", Path("corpus.txt")}) == expected)
        << "encode --lines --threads " << threads << " differs from --threads 1";
  }
  EXPECT_TRUE(Run({"encode", "-m", model, "--threads", "8", Path("more.txt")}) ==
              Run({"encode", "-m", model, "--threads", "1", Path("more.txt")}));
}

TEST_F(DeterminismTest, ByteTrainingAndEncodingIgnoreThreadCount) {
  const std::string model = TrainEverywhere("byte", kByteFlags);
  const std::string expected = Run({"encode", "-m", model, "--threads", "1", "--lines", Path("corpus.txt")});
  EXPECT_FALSE(expected.empty());
  for (const char* threads : {"2", "8"}) {
    EXPECT_TRUE(Run({"encode", "-m", model, "--threads", threads, "--lines", Path("corpus.txt")}) == expected)
        << "encode --lines --threads " << threads << " differs from --threads 1";
  }
}

TEST_F(DeterminismTest, InitAndEmbedIgnoreThreadCount) {
  const std::string tokenizer = Path("byte_t1.tokvec");
  if (!fs::exists(tokenizer)) {
    TrainEverywhere("byte", kByteFlags);
  }
  std::vector<std::string> init = {"init", "--tokenizer", tokenizer, "--arch", "gpt2", "--d-model", "32",
                                   "--heads", "4", "--layers", "2", "--max-len", "512", "--seed", "7", "-o"};
  std::vector<std::string> init_a = init, init_b = init;
  init_a.push_back(Path("model_a"));
  init_b.push_back(Path("model_b"));
  Run(init_a);
  Run(init_b);
  for (const auto& entry : fs::directory_iterator(Path("model_a"))) {
    const fs::path other = fs::path(Path("model_b")) / entry.path().filename();
    EXPECT_TRUE(ReadBytes(entry.path()) == ReadBytes(other)) << entry.path() << " differs between two inits";
  }
  std::ofstream(Path("lines.txt"), std::ios::binary) << testing::GenerateCorpus(/*seed=*/13, 8 << 10);
  const std::string expected =
      Run({"embed", "-m", Path("model_a"), "--lines", "--format", "tsv", "--threads", "1", Path("lines.txt")});
  EXPECT_FALSE(expected.empty());
  for (const char* threads : {"2", "8"}) {
    EXPECT_TRUE(Run({"embed", "-m", Path("model_a"), "--lines", "--format", "tsv", "--threads", threads,
                     Path("lines.txt")}) == expected)
        << "embed --threads " << threads << " differs from --threads 1";
  }
}

}  // namespace
}  // namespace tokvec
