// `tokvec bench gemm`: one JSON line per rows x shape with both GFLOP/s figures; bad --shapes / --rows are usage
// errors (exit 2); TOKVEC_GEMM=openblas (or a CPU without AVX-512F) is an error naming the reason.
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/packed_gemm.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunResult;
using testing::RunTokvec;

TEST(BenchGemmTest, PrintsOneLinePerRowsAndShape) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  RunResult r = RunTokvec({"bench", "gemm", "--rows", "13,40", "--shapes", "70x33", "--repeats", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  int lines = 0;
  for (size_t begin = 0, end; (end = r.out.find('\n', begin)) != std::string::npos; begin = end + 1, ++lines) {
    const nlohmann::json line = nlohmann::json::parse(r.out.substr(begin, end - begin));
    EXPECT_EQ(line["bench"], "gemm");
    EXPECT_EQ(line["rows"], lines == 0 ? 13 : 40);
    EXPECT_EQ(line["in"], 70);
    EXPECT_EQ(line["out"], 33);
    EXPECT_GT(line["packed_gflops"].get<double>(), 0.0);
    EXPECT_GT(line["sgemm_gflops"].get<double>(), 0.0);
    EXPECT_TRUE(line["blas_core"].is_string());
  }
  EXPECT_EQ(lines, 2);
}

TEST(BenchGemmTest, UsageErrorsExitTwo) {
  for (const char* shape : {"768x", "x768", "768x0", "768x768x", "abc"}) {
    RunResult r = RunTokvec({"bench", "gemm", "--shapes", shape});
    EXPECT_EQ(r.exit_code, 2) << r.Describe();
    EXPECT_THAT(r.err, HasSubstr(std::string("error: usage: bad --shapes entry '") + shape + "'"));
  }
  RunResult r = RunTokvec({"bench", "gemm", "--rows", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("error: usage: every --rows value must be in 1..16384"));
}

// OPENBLAS_CORETYPE is the user's: tokvec keeps the kernels it names (kernels/blas_kernels.h replaces only
// OpenBLAS's own fallback).
TEST(BenchGemmTest, OpenBlasCoreTypeFromTheUserIsKept) {
  if (!PackedGemmAvailable()) GTEST_SKIP() << "the CPU has no AVX-512F (or TOKVEC_GEMM=openblas)";
  testing::ShellResult r = testing::RunShell(fmt::format(
      "OPENBLAS_CORETYPE=Prescott {} bench gemm --rows 12 --shapes 32x32 --repeats 1", testing::Tokvec()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json line = nlohmann::json::parse(r.out);
  if (line["blas_core"] == "") GTEST_SKIP() << "the BLAS does not name its kernels";
  EXPECT_EQ(line["blas_core"], "Prescott");
}

TEST(BenchGemmTest, OpenBlasOnlyIsAnError) {
  testing::ShellResult r =
      testing::RunShell(fmt::format("TOKVEC_GEMM=openblas {} bench gemm --rows 12 --shapes 32x32", testing::Tokvec()));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("error: bench gemm: the packed GEMM needs AVX-512F (and TOKVEC_GEMM unset)"));
}

}  // namespace
}  // namespace tokvec
