// Sharded `tokvec embed` (issue 15, item 3): parts by line number joined with --gather give the bytes of one
// process; a re-run skips complete parts and redoes a missing or damaged one (a killed run leaves no part: files
// are renamed into place); parts of another job (changed input) are not reused.
#include <signal.h>

#include <filesystem>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using testing::ReadWhole;
using testing::RunShell;
using testing::ScratchDir;
using testing::ShellResult;
using testing::Tokvec;
using testing::WriteWhole;

class EmbedShardsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string corpus = std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt";
    Ok(fmt::format("{} train --type byte --merges 200 -o {} {}", Tokvec(), scratch_ / "tok.tokvec", corpus));
    Ok(fmt::format("{} init --tokenizer {} --d-model 32 --heads 2 --layers 2 --max-len 512 --seed 1 -o {}",
                   Tokvec(), scratch_ / "tok.tokvec", scratch_ / "m"));
    std::string lines;  // 700 non-empty lines of several lengths, some repeated (equal-length batches)
    for (int i = 0; i < 700; ++i) lines += fmt::format("line {} says {}\n", i, std::string(1 + i % 37, 'a' + i % 26));
    WriteWhole(scratch_ / "a.txt", lines);
    WriteWhole(scratch_ / "b.txt", "the second file\r\nhas CRLF lines\r\nand no final newline");
    Ok(fmt::format("{} embed -m {} --lines --pooling mean --format npy -o {} {} {}", Tokvec(), scratch_ / "m",
                   scratch_ / "single.npy", scratch_ / "a.txt", scratch_ / "b.txt"));
  }
  static ShellResult Ok(const std::string& command) {
    ShellResult r = RunShell(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    return r;
  }
  ShellResult Shard(int part, int parts, const std::string& dir = "parts") {
    return RunShell(fmt::format("{} embed -m {} --lines --pooling mean --format npy --threads 2 --shard {}/{} -o {} "
                                "{} {}",
                                Tokvec(), scratch_ / "m", part, parts, scratch_ / dir, scratch_ / "a.txt",
                                scratch_ / "b.txt"));
  }
  std::string Gather(const std::string& dir = "parts") {
    Ok(fmt::format("{} embed --gather {} -o {}", Tokvec(), scratch_ / dir, scratch_ / "all.npy"));
    return ReadWhole(scratch_ / "all.npy");
  }

  ScratchDir scratch_;
};

TEST_F(EmbedShardsTest, PartsGatherToTheSingleProcessBytes) {
  for (int parts : {1, 2, 3, 7}) {
    const std::string dir = fmt::format("parts{}", parts);
    for (int part = parts - 1; part >= 0; --part) EXPECT_EQ(Shard(part, parts, dir).exit_code, 0);
    EXPECT_EQ(Gather(dir), ReadWhole(scratch_ / "single.npy")) << parts << " parts";
    auto manifest = nlohmann::json::parse(ReadWhole(scratch_ / dir + "/manifest.json"));
    EXPECT_TRUE(manifest["complete"].get<bool>());
    EXPECT_EQ(manifest["lines"].get<int64_t>(), 703);
    EXPECT_EQ(manifest["job"]["inputs"].size(), 2u);
  }
}

TEST_F(EmbedShardsTest, ARerunRedoesOnlyMissingOrDamagedParts) {
  for (int part = 0; part < 3; ++part) ASSERT_EQ(Shard(part, 3).exit_code, 0);
  // A killed run of part 1 (if it got that far, its files are whole: the next steps redo it anyway).
  std::filesystem::remove(scratch_ / "parts/part-00001.npy");
  RunShell(fmt::format("timeout -s KILL 0.3 {} embed -m {} --lines --pooling mean --format npy --shard 1/3 -o {} {} {}",
                       Tokvec(), scratch_ / "m", scratch_ / "parts", scratch_ / "a.txt", scratch_ / "b.txt"));
  // Damage part 2's vectors (same size, one byte changed).
  std::string damaged = ReadWhole(scratch_ / "parts/part-00002.npy");
  damaged[damaged.size() - 1] ^= 1;
  WriteWhole(scratch_ / "parts/part-00002.npy", damaged);
  ShellResult gather = RunShell(fmt::format("{} embed --gather {} -o {}", Tokvec(), scratch_ / "parts",
                                            scratch_ / "all.npy"));
  EXPECT_EQ(gather.exit_code, 1);
  // Part 1 if the kill came first (slow builds), else the damaged part 2.
  EXPECT_THAT(gather.err, ::testing::ContainsRegex("part [12] of 3 in .* is missing, damaged or of another job"));
  EXPECT_FALSE(std::filesystem::exists(scratch_ / "all.npy"));
  ShellResult r0 = Shard(0, 3), r2 = Shard(2, 3), r1 = Shard(1, 3);
  EXPECT_THAT(r0.err, ::testing::HasSubstr("part 0 of 3 in")) << "complete part 0 is skipped";
  EXPECT_THAT(r2.err, ::testing::Not(::testing::HasSubstr("skipped")));
  EXPECT_EQ(Gather(), ReadWhole(scratch_ / "single.npy"));
  // Another input: the old parts are not reused.
  WriteWhole(scratch_ / "b.txt", "a changed second file\n");
  ShellResult again = Shard(0, 3);
  EXPECT_THAT(again.err, ::testing::Not(::testing::HasSubstr("skipped")));
}

// A sharded-weights model (model.safetensors.index.json + two shards): a changed shard is another job, so its
// parts are not reused.
TEST(EmbedShardsBertTest, AChangedWeightShardIsAnotherJob) {
  ScratchDir scratch;
  std::filesystem::copy(testing::ModelTestdata() + "/hf_bert_sharded", scratch / "m",
                        std::filesystem::copy_options::recursive);
  WriteWhole(scratch / "a.txt", "Your cat is a lovely cat\nThe quick brown fox\n");
  const std::string command = fmt::format("{} embed -m {} --lines --pooling mean --format npy --shard 0/1 -o {} {}",
                                          Tokvec(), scratch / "m", scratch / "parts", scratch / "a.txt");
  ASSERT_EQ(RunShell(command).exit_code, 0);
  ShellResult same = RunShell(command);
  EXPECT_THAT(same.err, ::testing::HasSubstr("skipped")) << "nothing changed: the part is reused";
  const std::string shard = scratch / "m/model-00002-of-00002.safetensors";
  std::string bytes = ReadWhole(shard);
  bytes[bytes.size() - 1] ^= 1;  // the last weight's lowest byte
  WriteWhole(shard, bytes);
  ShellResult changed = RunShell(command);
  EXPECT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_THAT(changed.err, ::testing::Not(::testing::HasSubstr("skipped")));
}

}  // namespace
}  // namespace tokvec
