// `tokvec bench attention|layer`: one JSON line with the documented fields, plausible values, usage errors.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunResult;
using testing::RunTokvec;

TEST(BenchCommandTest, AttentionPrintsOneJsonLine) {
  RunResult r = RunTokvec({"bench", "attention", "--seq-len", "200", "--heads", "2", "--head-dim", "32",
                           "--threads", "2", "--causal", "--repeats", "2", "--sgemm-size", "128"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const nlohmann::json line = nlohmann::json::parse(r.out);
  EXPECT_EQ(line["bench"], "attention");
  EXPECT_EQ(line["seq_len"], 200);
  EXPECT_EQ(line["causal"], true);
  for (const char* key : {"ms", "gflops", "sgemm_gflops", "ratio_to_sgemm", "peak_rss_mb"}) {
    ASSERT_TRUE(line.contains(key)) << key << " missing in " << r.out;
    EXPECT_GT(line[key].get<double>(), 0.0) << key;
  }
  // gflops is the causal FLOP count (4·Dh·H·T(T+1)/2) over the median time.
  const double flops = 4.0 * 32 * 2 * 200.0 * 201.0 / 2.0;
  EXPECT_NEAR(line["gflops"].get<double>(), flops / (line["ms"].get<double>() * 1e6),
              1e-6 * line["gflops"].get<double>());
  EXPECT_LT(line["peak_rss_mb"].get<double>(), 1024.0);
}

TEST(BenchCommandTest, LayerBothMethodsPrintTokensPerSecond) {
  for (const char* method : {"batched", "reference"}) {
    RunResult r = RunTokvec({"bench", "layer", "--d-model", "64", "--heads", "4", "--ff", "128", "--batch", "3",
                             "--seq-len", "10", "--threads", "2", "--repeats", "2", "--method", method});
    ASSERT_EQ(r.exit_code, 0) << r.Describe();
    const nlohmann::json line = nlohmann::json::parse(r.out);
    EXPECT_EQ(line["method"], method);
    EXPECT_NEAR(line["tokens_per_s"].get<double>(), 30.0 / (line["ms"].get<double>() / 1000.0),
                1e-6 * line["tokens_per_s"].get<double>());
    EXPECT_GT(line["peak_rss_mb"].get<double>(), 0.0);
  }
}

TEST(BenchCommandTest, UsageErrorsExitTwo) {
  RunResult r = RunTokvec({"bench", "attention", "--method", "fast"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("unknown --method 'fast'"));
  r = RunTokvec({"bench", "layer", "--d-model", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  r = RunTokvec({"bench"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
}

}  // namespace
}  // namespace tokvec
