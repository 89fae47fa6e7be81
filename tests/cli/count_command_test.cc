// `tokvec count` and `tokvec train --from-counts`: training from counts gives the bytes training from the text
// gives (word and byte models), counting parts and adding them up with --merge gives the counts of the whole,
// counts written outside tokvec (scripts/word_counts.py, docs/scale.md's Spark / Dask record format) train the same
// model, and counts above 2^32 keep their order.
#include <filesystem>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using testing::ReadWhole;
using testing::RunShell;
using testing::ScratchDir;
using testing::ShellResult;
using testing::Tokvec;

const std::string kCorpus = std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt";
const std::string kShakespeare = std::string(TOKVEC_SHARED_DIR) + "/corpora/tinyshakespeare.txt";

void RunOk(const std::string& command) {
  ShellResult r = RunShell(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
}

TEST(CountCommandTest, TrainingFromCountsGivesTheBytesOfTrainingFromText) {
  ScratchDir scratch;
  std::vector<std::string> corpora = {kCorpus};
  if (std::filesystem::exists(kShakespeare)) {
    corpora.push_back(kShakespeare);
  } else {
    std::printf("note: %s is absent; data/corpus.txt only\n", kShakespeare.c_str());
  }
  for (const std::string& corpus : corpora) {
    for (const char* options : {"--type word", "--type byte", "--type byte --pattern cl100k --normalize nfkc",
                                "--type byte --split-lines"}) {
      const std::string train = fmt::format("{} train {} --vocab-size 2000 --special '<|endoftext|>' --threads 2",
                                            Tokvec(), options);
      RunOk(fmt::format("{} -o {} {}", train, scratch / "text.tokvec", corpus));
      RunOk(fmt::format("{} count {} --threads 2 -o {} {}", Tokvec(), options, scratch / "counts.tsv", corpus));
      RunOk(fmt::format("{} --from-counts -o {} {}", train, scratch / "counts.tokvec", scratch / "counts.tsv"));
      EXPECT_EQ(ReadWhole(scratch / "counts.tokvec"), ReadWhole(scratch / "text.tokvec")) << corpus << " " << options;
      // The counts are the same for any thread count.
      RunOk(fmt::format("{} count {} --threads 1 -o {} {}", Tokvec(), options, scratch / "counts1.tsv", corpus));
      EXPECT_EQ(ReadWhole(scratch / "counts1.tsv"), ReadWhole(scratch / "counts.tsv")) << options;
      // Another cutting than the one counted is refused.
      ShellResult r = RunShell(fmt::format("{} train --type byte --pattern o200k --merges 5 --from-counts -o {} {}",
                                           Tokvec(), scratch / "other.tokvec", scratch / "counts.tsv"));
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_THAT(r.err, ::testing::HasSubstr("were counted with type="));
    }
  }
}

TEST(CountCommandTest, PartsAddedUpEqualTheWhole) {
  ScratchDir scratch;
  const std::string text = ReadWhole(kCorpus);
  const size_t half = text.find('\n', text.size() / 2) + 1;
  testing::WriteWhole(scratch / "a.txt", text.substr(0, half));
  testing::WriteWhole(scratch / "b.txt", text.substr(half));
  for (const char* type : {"word", "byte"}) {
    RunOk(fmt::format("{} count --type {} -o {} {}", Tokvec(), type, scratch / "whole.tsv", kCorpus));
    RunOk(fmt::format("{} count --type {} -o {} {}", Tokvec(), type, scratch / "a.tsv", scratch / "a.txt"));
    RunOk(fmt::format("{} count --type {} -o {} {}", Tokvec(), type, scratch / "b.tsv", scratch / "b.txt"));
    RunOk(fmt::format("{} count --merge -o {} {} {}", Tokvec(), scratch / "merged.tsv", scratch / "a.tsv",
                    scratch / "b.tsv"));
    EXPECT_EQ(ReadWhole(scratch / "merged.tsv"), ReadWhole(scratch / "whole.tsv")) << type;
    EXPECT_NE(ReadWhole(scratch / "a.tsv"), ReadWhole(scratch / "whole.tsv"));
  }
}

TEST(CountCommandTest, CountsWrittenOutsideTokvecTrainTheSameModel) {
  ScratchDir scratch;
  RunOk(fmt::format("python3 {}/scripts/word_counts.py --parts 3 -o {} {}", TOKVEC_SOURCE_DIR, scratch / "parts",
                  kCorpus));
  RunOk(fmt::format("{} train --type word --vocab-size 1500 -o {} {}", Tokvec(), scratch / "text.tokvec", kCorpus));
  RunOk(fmt::format("{} train --type word --vocab-size 1500 --from-counts -o {} {}/part-*", Tokvec(),
                  scratch / "parts.tokvec", scratch / "parts"));
  EXPECT_EQ(ReadWhole(scratch / "parts.tokvec"), ReadWhole(scratch / "text.tokvec"));
}

// Counts are 64-bit: 2^33 + 1 for "ab" against 2^32 + 2 for "xy" (truncated to 32 bits: 1 against 2, the other
// order). The first merge joins a and b (or b and </w>: the same count), never x and y.
TEST(CountCommandTest, CountsAbove2To32KeepTheirOrder) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "big.tsv", "ab\t8589934593\nxy\t4294967298\n");
  RunOk(fmt::format("{} train --type word --merges 1 --from-counts -o {} {}", Tokvec(), scratch / "m.tokvec",
                  scratch / "big.tsv"));
  const std::string model = ReadWhole(scratch / "m.tokvec");
  const size_t merges = model.find("\nmerges 1\n");
  ASSERT_NE(merges, std::string::npos) << model;
  const std::string first = model.substr(merges + 10, model.find('\n', merges + 10) - merges - 10);
  EXPECT_THAT(first, ::testing::AnyOf("a b", "b </w>")) << model;
}

}  // namespace
}  // namespace tokvec
