// A tokvec built without MPI refuses to run as one of several ranks (distributed/world.h, CheckLauncher): under
// `mpirun -np 3` each copy would run the whole job and race to write the same output file.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/wait.h>

#include "absl/status/status.h"
#include "distributed/world.h"
#include "gtest/gtest.h"

namespace tokvec::distributed {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(LauncherTest, WorldSizeComesFromTheLauncherEnvironment) {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  EXPECT_EQ(LauncherWorldSize(), 1);
  {
    ScopedEnv size("OMPI_COMM_WORLD_SIZE", "3");
    EXPECT_EQ(LauncherWorldSize(), 3);
  }
  {
    ScopedEnv size("PMI_SIZE", "4");
    EXPECT_EQ(LauncherWorldSize(), 4);
  }
  {
    ScopedEnv size("OMPI_COMM_WORLD_SIZE", "three");  // unreadable: as if absent
    EXPECT_EQ(LauncherWorldSize(), 1);
  }
}

TEST(LauncherTest, WithoutMpiSeveralRanksAreRefusedWithTheFix) {
  ScopedEnv size("OMPI_COMM_WORLD_SIZE", "3");
  const absl::Status status = CheckLauncher();
  if (BuiltWithMpi()) {
    EXPECT_TRUE(status.ok()) << status;
    return;
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("one of 3 processes"), std::string::npos) << status;
  EXPECT_NE(status.message().find("-DTOKVEC_MPI=ON"), std::string::npos) << status;
}

TEST(LauncherTest, OneRankRunsWithOrWithoutMpi) {
  ScopedEnv size("OMPI_COMM_WORLD_SIZE", "1");
  EXPECT_TRUE(CheckLauncher().ok());
}

// The binary itself: `tokvec inspect` under a launcher's environment of 2 ranks exits 1 before running, in a build
// without MPI (in an MPI build the variables would make it join a job, so this runs in the sanitizer builds).
TEST(LauncherTest, BinaryWithoutMpiRefusesToRunAsOneOfTwoRanks) {
  if (BuiltWithMpi()) GTEST_SKIP() << "built with MPI: the refusal is for builds without it";
  const std::string command = std::string("OMPI_COMM_WORLD_SIZE=2 '") + TOKVEC_BINARY + "' inspect '" +
                              TOKVEC_SOURCE_DIR + "/data/corpus.txt' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[512];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << output;
  EXPECT_EQ(output.rfind("error: this tokvec was built without MPI", 0), 0u) << output;
}

}  // namespace
}  // namespace tokvec::distributed
