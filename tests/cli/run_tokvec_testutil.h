// Runs the tokvec binary (TOKVEC_BINARY) as a child process for CLI tests: arguments, standard input from a
// string, a file or a generator, standard output to a pipe or a file (e.g. /dev/full), a time limit, signals,
// and the child's peak memory.
//
//   RunResult r = RunTokvec({"encode", "-m", "missing.tokvec"});
//   EXPECT_EQ(r.exit_code, 1);
//   EXPECT_THAT(r.err, HasSubstr("error:"));
//
//   Subprocess child = Subprocess::Start({"train", ...}, {.stdin_generator = ...});
//   child.Signal(SIGINT);            // after the output file has been opened
//   RunResult r = child.Wait();      // r.exit_code == 130
#ifndef TOKVEC_TESTS_CLI_RUN_TOKVEC_TESTUTIL_H_
#define TOKVEC_TESTS_CLI_RUN_TOKVEC_TESTUTIL_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tokvec::testing {

struct RunOptions {
  std::string stdin_data;  // Written to the child's standard input (then closed)...
  // ...or, when set, called repeatedly for more input until it returns false (for inputs too big to hold).
  std::function<bool(std::string* chunk)> stdin_generator;
  std::optional<std::string> stdout_path;  // Standard output goes to this file (e.g. "/dev/full").
  double timeout_seconds = 60;             // Then the child is killed and `timed_out` is set.
  std::string working_dir;                 // Empty: the test's working directory.
};

struct RunResult {
  int exit_code = -1;      // -1 when killed by a signal.
  int term_signal = 0;     // The signal that killed the child, or 0.
  bool timed_out = false;  // Killed by us after timeout_seconds.
  std::string out;         // Standard output (empty when redirected to stdout_path).
  std::string err;         // Standard error.
  double seconds = 0;      // Wall time.
  double cpu_seconds = 0;  // User + system CPU time of the child (steadier than wall time on a busy machine).
  long peak_rss_kb = 0;    // getrusage's ru_maxrss of the child.
  std::string Describe() const;  // For failure messages: exit code, signal, time and stderr.
};

// The tokvec binary under test (env TOKVEC_BINARY, else the compile-time TOKVEC_BINARY).
std::string TokvecBinary();

class Subprocess {
 public:
  static Subprocess Start(const std::vector<std::string>& args, RunOptions options = {});
  Subprocess(Subprocess&& other) noexcept;
  ~Subprocess();
  // Sends `signal` to the child.
  void Signal(int signal);
  // Feeds standard input, collects output until the child exits (or the time limit), and reaps it.
  RunResult Wait();
  // Runs the pump (feeding input, reading output) for up to `seconds` or until `done()` is true; returns done().
  bool PumpUntil(double seconds, const std::function<bool()>& done);

 private:
  Subprocess() = default;
  bool Pump(int timeout_ms);  // One poll round; false once output is closed.

  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  RunOptions options_;
  std::string pending_in_;  // Bytes generated but not yet written.
  size_t in_offset_ = 0;
  RunResult result_;
  double start_ = 0;
};

// Start + Wait.
RunResult RunTokvec(const std::vector<std::string>& args, RunOptions options = {});

}  // namespace tokvec::testing

#endif  // TOKVEC_TESTS_CLI_RUN_TOKVEC_TESTUTIL_H_
