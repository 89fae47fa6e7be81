// WorkerPool must run every index exactly once per Run, for any task and thread count, over many consecutive
// Runs (the workers go from spinning to sleeping in between), and shut down cleanly.
#include "attention/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tokvec {
namespace {

TEST(WorkerPoolTest, EveryIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    WorkerPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int64_t n : {0, 1, 2, 7, 96, 1000}) {
      std::vector<std::atomic<int>> calls(static_cast<size_t>(n));
      pool.Run(n, [&](int64_t i) { calls[static_cast<size_t>(i)].fetch_add(1); });
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(calls[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n << ", " << threads
                                                            << " threads";
      }
    }
  }
}

TEST(WorkerPoolTest, ManyRunsWithSleepsBetween) {
  WorkerPool pool(2);
  std::atomic<int64_t> sum{0};
  for (int run = 0; run < 200; ++run) {
    pool.Run(10, [&](int64_t i) { sum.fetch_add(i + 1); });
    // Sometimes long enough for the worker to stop spinning and sleep on the condition variable.
    if (run % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(sum.load(), 200 * 55);
}

TEST(WorkerPoolTest, UsesMoreThanOneThread) {
  WorkerPool pool(2);
  std::atomic<int> inside{0}, overlap{0};
  pool.Run(2, [&](int64_t) {
    inside.fetch_add(1);
    // Both tasks wait (up to 2 s) for each other: only possible if they run on two threads at once.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (inside.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (inside.load() == 2) overlap.fetch_add(1);
  });
  EXPECT_EQ(overlap.load(), 2);
}

}  // namespace
}  // namespace tokvec
