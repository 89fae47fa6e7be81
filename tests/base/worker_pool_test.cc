// WorkerPool (base/worker_pool.h) must run every index exactly once per Run, for any task and thread count, over many consecutive
// Runs (the workers go from spinning to sleeping in between), and shut down cleanly.
#include "base/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
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

// The worker number: 0 on the calling thread, 1..threads-1 on the workers, each thread always the same number.
TEST(WorkerPoolTest, WorkerNumbersAreStablePerThread) {
  WorkerPool pool(3);
  std::mutex mutex;
  std::map<std::thread::id, std::set<int>> numbers;
  for (int run = 0; run < 50; ++run) {
    pool.Run(64, [&](int64_t, int worker) {
      std::lock_guard<std::mutex> lock(mutex);
      numbers[std::this_thread::get_id()].insert(worker);
    });
  }
  EXPECT_EQ(numbers[std::this_thread::get_id()], std::set<int>{0});
  for (const auto& [thread, seen] : numbers) {
    ASSERT_EQ(seen.size(), 1u) << "a thread ran under two numbers";
    EXPECT_GE(*seen.begin(), 0);
    EXPECT_LT(*seen.begin(), 3);
  }
}

}  // namespace
}  // namespace tokvec
