// Robust writes: an interrupted `tokvec train -o FILE` (SIGINT or SIGTERM while it is reading its corpus, when
// its temporary output file already exists) leaves the old FILE untouched (or no FILE when there was none),
// removes its temporary file, says `error: interrupted` and exits with 128 + the signal number.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/corpus_testutil.h"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunOptions;
using testing::RunResult;
using testing::Subprocess;

std::set<std::string> Listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct Interruption {
  int signal;
  bool old_file;  // Whether FILE exists before the run.
};

class RobustWriteTest : public ::testing::TestWithParam<Interruption> {};

TEST_P(RobustWriteTest, InterruptedTrainLeavesOldFileOrNothing) {
  const Interruption& c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("tokvec_robust_write_" + std::to_string(getpid()) + "_" +
                                                    std::to_string(c.signal) + (c.old_file ? "_old" : "_new"));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path output = dir / "model.tokvec";
  const std::string kOld = "the previous model file\n";
  if (c.old_file) std::ofstream(output, std::ios::binary) << kOld;
  const std::set<std::string> before = Listing(dir);

  // An endless corpus on standard input: training cannot finish before the signal.
  RunOptions options;
  auto corpus = std::make_shared<testing::CorpusGenerator>(/*seed=*/9);
  options.stdin_generator = [corpus](std::string* chunk) {
    *chunk = corpus->Next(1 << 20);
    return true;
  };
  options.timeout_seconds = 120;
  Subprocess child = Subprocess::Start(
      {"train", "--type", "word", "--merges", "100", "--threads", "2", "-o", output.string(), "-"}, options);
  // Wait until the temporary output file exists (the run has opened its output), then a little longer so the
  // corpus is being read.
  const bool opened = child.PumpUntil(60, [&] { return Listing(dir).size() > before.size(); });
  EXPECT_TRUE(opened) << "no temporary file appeared in " << dir;
  child.PumpUntil(0.5, [] { return false; });
  child.Signal(c.signal);
  RunResult r = child.Wait();

  SCOPED_TRACE(r.Describe());
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + c.signal);
  EXPECT_THAT(r.err, HasSubstr("error: interrupted"));
  EXPECT_EQ(Listing(dir), before) << "temporary file left behind, or output created";
  if (c.old_file) {
    EXPECT_EQ(ReadBytes(output), kOld);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Signals, RobustWriteTest,
                         ::testing::Values(Interruption{SIGINT, true}, Interruption{SIGTERM, true},
                                           Interruption{SIGINT, false}, Interruption{SIGTERM, false}),
                         [](const auto& info) {
                           return std::string(info.param.signal == SIGINT ? "Sigint" : "Sigterm") +
                                  (info.param.old_file ? "OverOldFile" : "NoOldFile");
                         });

}  // namespace
}  // namespace tokvec
