// `tokvec bench attention --kind KIND`: every kind prints one JSON line naming the kind canonically; a bad kind
// and linformer with --causal are usage errors (exit 2).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunResult;
using testing::RunTokvec;

struct KindCase {
  const char* given;      // --kind as typed
  const char* canonical;  // "kind" in the JSON line
  bool causal;
  bool has_gflops;  // full and the sparse kinds count visible query-key pairs
};

TEST(BenchKindTest, EveryKindPrintsOneJsonLineWithItsName) {
  const KindCase cases[] = {
      {"full", "full", true, true},
      {"window:032", "window:32", true, true},
      {"longformer:32,2", "longformer:32,2", true, true},
      {"bigbird:16,2,1", "bigbird:16,2,1", false, true},
      {"linformer:16", "linformer:16", false, false},
      {"performer:32", "performer:32", true, false},
      {"linear", "linear", true, false},
  };
  for (const KindCase& c : cases) {
    std::vector<std::string> args = {"bench",     "attention", "--kind",    c.given,     "--seq-len",    "200",
                                     "--heads",   "2",         "--head-dim", "32",       "--threads",    "2",
                                     "--repeats", "2",         "--sgemm-size", "64"};
    if (c.causal) args.push_back("--causal");
    RunResult r = RunTokvec(args);
    ASSERT_EQ(r.exit_code, 0) << c.given << "\n" << r.Describe();
    const nlohmann::json line = nlohmann::json::parse(r.out);
    EXPECT_EQ(line["bench"], "attention");
    EXPECT_EQ(line["kind"], c.canonical);
    EXPECT_EQ(line["method"], std::string(c.canonical) == "full" ? "flash" : "attention_of_kind") << c.given;
    EXPECT_EQ(line["seq_len"], 200);
    EXPECT_EQ(line["causal"], c.causal);
    for (const char* key : {"ms", "tokens_per_s", "sgemm_gflops", "peak_rss_mb"}) {
      ASSERT_TRUE(line.contains(key)) << key << " missing in " << r.out;
      EXPECT_GT(line[key].get<double>(), 0.0) << key << " of " << c.given;
    }
    EXPECT_NEAR(line["tokens_per_s"].get<double>(), 200.0 / (line["ms"].get<double>() / 1000.0),
                1e-6 * line["tokens_per_s"].get<double>());
    EXPECT_EQ(line.contains("gflops"), c.has_gflops) << r.out;
    EXPECT_EQ(line.contains("ratio_to_sgemm"), c.has_gflops) << r.out;
    EXPECT_LT(line["peak_rss_mb"].get<double>(), 1024.0);
  }
}

TEST(BenchKindTest, WindowGflopsCountOnlyThePatternsKeys) {
  // window:8 causal over T = 100: query i sees min(i + 1, 8) keys -> 28 + 93·8 = 772 pairs per head.
  RunResult r = RunTokvec({"bench", "attention", "--kind", "window:8", "--seq-len", "100", "--heads", "1",
                           "--head-dim", "16", "--causal", "--repeats", "1", "--sgemm-size", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const nlohmann::json line = nlohmann::json::parse(r.out);
  const double flops = 4.0 * 16 * 772.0;
  EXPECT_NEAR(line["gflops"].get<double>(), flops / (line["ms"].get<double>() * 1e6),
              1e-6 * line["gflops"].get<double>());
}

TEST(BenchKindTest, UsageErrorsExitTwo) {
  RunResult r = RunTokvec({"bench", "attention", "--kind", "windo:3"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("error: attention kind 'windo:3': "));
  EXPECT_TRUE(r.out.empty()) << r.out;
  r = RunTokvec({"bench", "attention", "--kind", "window:0"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("error: attention kind 'window:0': "));
  r = RunTokvec({"bench", "attention", "--kind", "linformer:16", "--causal", "--seq-len", "64"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("bidirectional only"));
  EXPECT_TRUE(r.out.empty()) << r.out;
  r = RunTokvec({"bench", "attention", "--kind", "window:8", "--method", "reference", "--seq-len", "64"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("--method reference is for --kind full"));
}

}  // namespace
}  // namespace tokvec
