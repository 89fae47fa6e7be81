// Helpers for the CLI tests of init / embed / attend: run the tokvec binary through the shell and read what it
// wrote, and scratch directories.
//
//   ShellResult r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), dir, input));
//   EXPECT_EQ(r.exit_code, 0) << r.err;
#ifndef TOKVEC_TESTS_CLI_MODEL_CLI_TESTUTIL_H_
#define TOKVEC_TESTS_CLI_MODEL_CLI_TESTUTIL_H_

#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tokvec::testing {

inline std::string Tokvec() {
  const char* env = std::getenv("TOKVEC_BINARY");
  return env != nullptr && *env != '\0' ? env : TOKVEC_BINARY;
}

inline std::string ModelTestdata() { return std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata"; }

inline std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteWhole(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A fresh directory under the system temp dir, removed by the destructor.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tokvec_cli_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct ShellResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `command` with sh, capturing standard output and error in files of a scratch directory.
inline ShellResult RunShell(const std::string& command) {
  ScratchDir scratch;
  const std::string full = command + " > " + (scratch / "out") + " 2> " + (scratch / "err");
  const int status = std::system(full.c_str());
  ShellResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadWhole(scratch / "out");
  r.err = ReadWhole(scratch / "err");
  return r;
}

}  // namespace tokvec::testing

#endif  // TOKVEC_TESTS_CLI_MODEL_CLI_TESTUTIL_H_
