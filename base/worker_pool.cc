#include "base/worker_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tokvec {
namespace {

// Polls of the generation counter before a worker sleeps (about 50–100 µs with a pause per poll): longer than
// the gap between two loops of one layer, short enough not to steal a shared core for long.
constexpr int kSpinRounds = 20000;

inline void CpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

WorkerPool::WorkerPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void WorkerPool::RunTasks(int worker) {
  const int64_t n = n_;
  for (int64_t i = next_.fetch_add(1, std::memory_order_relaxed); i < n;
       i = next_.fetch_add(1, std::memory_order_relaxed)) {
    (*fn_)(i, worker);
  }
}

void WorkerPool::WorkerLoop(int worker) {
  uint64_t seen = 0;
  while (true) {
    // 1. Wait for a new loop: spin, then sleep.
    bool started = false;
    for (int spin = 0; spin < kSpinRounds && !started; ++spin) {
      started = generation_.load(std::memory_order_acquire) != seen;
      if (!started) CpuRelax();
    }
    if (!started) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
    }
    seen = generation_.load(std::memory_order_acquire);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
    }
    // 2. Take tasks until none is left, then report.
    RunTasks(worker);
    running_.fetch_sub(1, std::memory_order_release);
  }
}

void WorkerPool::Run(int64_t n, const std::function<void(int64_t)>& fn) {
  Run(n, std::function<void(int64_t, int)>([&fn](int64_t i, int) { fn(i); }));
}

void WorkerPool::Run(int64_t n, const std::function<void(int64_t, int)>& fn) {
  if (workers_.empty() || n <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  fn_ = &fn;
  n_ = n;
  next_.store(0, std::memory_order_relaxed);
  running_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  RunTasks(0);
  // Every worker leaves RunTasks only once next_ >= n; wait until all have, so fn's captures stay valid.
  for (int spin = 0; running_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < kSpinRounds) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace tokvec
