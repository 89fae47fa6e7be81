// The progress line of `tokvec train` and `tokvec extend --more-merges` on stderr: bytes counted, then merges
// done and their rate; redrawn at most every 100 ms, only when stderr is a terminal.
#ifndef TOKVEC_CLI_TRAIN_PROGRESS_H_
#define TOKVEC_CLI_TRAIN_PROGRESS_H_

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fmt/format.h"

namespace tokvec::cli {

// A progress line on stderr, redrawn at most every 100 ms, only when stderr is a terminal.
class TrainProgress {
 public:
  TrainProgress() : enabled_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  void Bytes(uint64_t bytes) {
    if (Due()) std::fprintf(stderr, "\rcounting words: %.1f MB read   ", static_cast<double>(bytes) / 1e6);
  }
  void Merges(size_t done, size_t target) {
    if (!Due()) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - merge_start_).count();
    std::fprintf(stderr, "\rmerges: %zu%s (%.0f/s)          ", done,
                 target ? fmt::format("/{}", target).c_str() : "", seconds > 0 ? done / seconds : 0.0);
  }
  void StartMerges() { merge_start_ = Clock::now(); }
  // A line for a step that takes seconds (a Unigram EM round), kept on screen until the next.
  void Stage(const std::string& line) {
    if (!enabled_) return;
    drawn_ = true;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  }
  void Done() {
    if (enabled_ && drawn_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool Due() {
    if (!enabled_) return false;
    auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return false;
    last_ = now;
    drawn_ = true;
    return true;
  }
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_, last_, merge_start_;
};

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_TRAIN_PROGRESS_H_
