#include "tests/cli/run_tokvec_testutil.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fmt/format.h"

namespace tokvec::testing {
namespace {

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

std::string RunResult::Describe() const {
  return fmt::format("exit code {}, signal {}, {}{:.2f} s ({:.2f} s CPU), stderr:\n{}", exit_code, term_signal,
                     timed_out ? "TIMED OUT after " : "", seconds, cpu_seconds, err);
}

std::string TokvecBinary() {
  if (const char* env = std::getenv("TOKVEC_BINARY"); env != nullptr && *env != '\0') return env;
  return TOKVEC_BINARY;
}

Subprocess Subprocess::Start(const std::vector<std::string>& args, RunOptions options) {
  signal(SIGPIPE, SIG_IGN);  // A child that exits early must not kill the test with SIGPIPE.
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) std::abort();
  std::string binary = TokvecBinary();
  std::vector<std::string> argv_storage = {binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  Subprocess p;
  p.options_ = std::move(options);
  p.start_ = Now();
  p.pid_ = fork();
  if (p.pid_ < 0) std::abort();
  if (p.pid_ == 0) {
    dup2(in[0], 0);
    if (p.options_.stdout_path) {
      int fd = open(p.options_.stdout_path->c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) _exit(126);
      dup2(fd, 1);
    } else {
      dup2(out[1], 1);
    }
    dup2(err[1], 2);
    if (!p.options_.working_dir.empty() && chdir(p.options_.working_dir.c_str()) != 0) _exit(126);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  p.in_fd_ = in[1];
  p.out_fd_ = out[0];
  p.err_fd_ = err[0];
  fcntl(p.in_fd_, F_SETFL, O_NONBLOCK);
  p.pending_in_ = std::move(p.options_.stdin_data);
  if (p.pending_in_.empty() && !p.options_.stdin_generator) CloseFd(p.in_fd_);
  return p;
}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(other.pid_), in_fd_(other.in_fd_), out_fd_(other.out_fd_), err_fd_(other.err_fd_),
      options_(std::move(other.options_)), pending_in_(std::move(other.pending_in_)),
      in_offset_(other.in_offset_), result_(std::move(other.result_)), start_(other.start_) {
  other.pid_ = -1;
  other.in_fd_ = other.out_fd_ = other.err_fd_ = -1;
}

Subprocess::~Subprocess() {
  CloseFd(in_fd_);
  CloseFd(out_fd_);
  CloseFd(err_fd_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Subprocess::Signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

bool Subprocess::Pump(int timeout_ms) {
  pollfd fds[3];
  int n = 0;
  int in_index = -1, out_index = -1, err_index = -1;
  if (in_fd_ >= 0) {
    in_index = n;
    fds[n++] = {in_fd_, POLLOUT, 0};
  }
  if (out_fd_ >= 0) {
    out_index = n;
    fds[n++] = {out_fd_, POLLIN, 0};
  }
  if (err_fd_ >= 0) {
    err_index = n;
    fds[n++] = {err_fd_, POLLIN, 0};
  }
  if (n == 0) return false;
  if (poll(fds, n, timeout_ms) < 0 && errno != EINTR) std::abort();
  char buffer[65536];
  auto drain = [&](int index, int& fd, std::string& sink) {
    if (index < 0 || fds[index].revents == 0) return;
    ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got > 0) {
      sink.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      CloseFd(fd);
    }
  };
  drain(out_index, out_fd_, result_.out);
  drain(err_index, err_fd_, result_.err);
  if (in_index >= 0 && fds[in_index].revents != 0) {
    if (in_offset_ == pending_in_.size()) {
      pending_in_.clear();
      in_offset_ = 0;
      if (!options_.stdin_generator || !options_.stdin_generator(&pending_in_)) {
        if (pending_in_.empty()) CloseFd(in_fd_);
      }
    }
    if (in_fd_ >= 0 && in_offset_ < pending_in_.size()) {
      ssize_t wrote = write(in_fd_, pending_in_.data() + in_offset_, pending_in_.size() - in_offset_);
      if (wrote > 0) {
        in_offset_ += static_cast<size_t>(wrote);
      } else if (errno != EAGAIN && errno != EINTR) {
        CloseFd(in_fd_);  // The child closed its input (e.g. it exited).
      }
    }
  }
  return out_fd_ >= 0 || err_fd_ >= 0;
}

bool Subprocess::PumpUntil(double seconds, const std::function<bool()>& done) {
  const double deadline = Now() + seconds;
  while (!done() && Now() < deadline) {
    if (!Pump(10)) {
      usleep(10000);
    }
  }
  return done();
}

RunResult Subprocess::Wait() {
  const double deadline = start_ + options_.timeout_seconds;
  while (Now() < deadline && Pump(50)) {
  }
  int status = 0;
  rusage usage{};
  while (true) {
    pid_t got = wait4(pid_, &status, WNOHANG, &usage);
    if (got == pid_) break;
    if (Now() >= deadline) {
      result_.timed_out = true;
      kill(pid_, SIGKILL);
      wait4(pid_, &status, 0, &usage);
      break;
    }
    if (!Pump(20)) usleep(20000);
  }
  pid_ = -1;
  CloseFd(in_fd_);
  // Whatever is still buffered in the pipes.
  while (Pump(0)) {
  }
  result_.seconds = Now() - start_;
  result_.peak_rss_kb = usage.ru_maxrss;
  result_.cpu_seconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
                        usage.ru_stime.tv_usec * 1e-6;
  if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result_.term_signal = WTERMSIG(status);
  return std::move(result_);
}

RunResult RunTokvec(const std::vector<std::string>& args, RunOptions options) {
  return Subprocess::Start(args, std::move(options)).Wait();
}

}  // namespace tokvec::testing
