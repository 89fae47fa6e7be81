// Sharded `tokvec encode --lines` (issue 15, item 3): parts by line number joined with --gather give the lines
// one process writes, for every output format and for several inputs (one without a final newline, CRLF); a
// re-run skips a complete part and redoes a damaged one.
#include <filesystem>
#include <string>

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
using testing::WriteWhole;

const std::string kCorpus = std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt";

std::string MustRun(const std::string& command) {
  ShellResult r = RunShell(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
  return r.out + r.err;
}

TEST(EncodeShardsTest, PartsGatherToTheLinesOfOneProcess) {
  ScratchDir scratch;
  MustRun(fmt::format("{} train --type byte --merges 300 -o {} {}", Tokvec(), scratch / "tok.tokvec", kCorpus));
  WriteWhole(scratch / "b.txt", "a CRLF line\r\n\r\nthe last line has no newline\r");
  // One process over the same lines: the corpus followed by b.txt (the corpus ends with a newline).
  WriteWhole(scratch / "both.txt", ReadWhole(kCorpus) + ReadWhole(scratch / "b.txt"));
  for (const char* format : {"ids", "tokens", "json"}) {
    const std::string single = MustRun(fmt::format("{} encode -m {} --lines --format {} {} 2>/dev/null", Tokvec(),
                                                   scratch / "tok.tokvec", format, scratch / "both.txt"));
    for (int parts : {1, 3, 5}) {
      const std::string dir = scratch / fmt::format("{}-{}", format, parts);
      for (int part = 0; part < parts; ++part) {
        MustRun(fmt::format("{} encode -m {} --lines --format {} --shard {}/{} -o {} {} {}", Tokvec(),
                            scratch / "tok.tokvec", format, part, parts, dir, kCorpus, scratch / "b.txt"));
      }
      EXPECT_EQ(MustRun(fmt::format("{} encode --gather {} 2>/dev/null", Tokvec(), dir)), single)
          << format << ", " << parts << " parts";
    }
  }
  // A damaged part is redone, a complete one skipped.
  const std::string dir = scratch / "ids-3";
  std::string damaged = ReadWhole(dir + "/part-00001.ids");
  damaged[0] = damaged[0] == '1' ? '2' : '1';
  WriteWhole(dir + "/part-00001.ids", damaged);
  EXPECT_EQ(RunShell(fmt::format("{} encode --gather {} -o {}", Tokvec(), dir, scratch / "all.ids")).exit_code, 1);
  const std::string again = fmt::format("{} encode -m {} --lines --shard {{}}/3 -o {} {} {}", Tokvec(),
                                        scratch / "tok.tokvec", dir, kCorpus, scratch / "b.txt");
  EXPECT_THAT(MustRun(fmt::format(fmt::runtime(again), 0)), ::testing::HasSubstr("complete: skipped"));
  EXPECT_THAT(MustRun(fmt::format(fmt::runtime(again), 1)), ::testing::Not(::testing::HasSubstr("skipped")));
  MustRun(fmt::format("{} encode --gather {} -o {}", Tokvec(), dir, scratch / "all.ids"));
  // A record whose fields have other types (edited by hand, or another tool's file) is a damaged part, not a crash:
  // nlohmann's value() threw type_error for it.
  const std::string record = ReadWhole(dir + "/part-00002.json");
  for (const char* bad : {R"({"part": 2, "parts": "3", "key": 5, "file": [], "bytes": "x"})", R"({"part": 2})"}) {
    WriteWhole(dir + "/part-00002.json", bad);
    ShellResult gathered = RunShell(fmt::format("{} encode --gather {} -o {}", Tokvec(), dir, scratch / "x.ids"));
    EXPECT_EQ(gathered.exit_code, 1) << bad << "\n" << gathered.err;
    EXPECT_THAT(gathered.err, ::testing::HasSubstr("error: ")) << bad;
  }
  WriteWhole(dir + "/part-00002.json", record);
  EXPECT_EQ(ReadWhole(scratch / "all.ids"),
            MustRun(fmt::format("{} encode -m {} --lines {} 2>/dev/null", Tokvec(), scratch / "tok.tokvec",
                                scratch / "both.txt")));
}

}  // namespace
}  // namespace tokvec
