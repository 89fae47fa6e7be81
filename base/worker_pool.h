// Threads kept alive between parallel loops, for code that runs many short loops in a row (the batched block
// runs five per layer: QKV, attention, W_o, up, down). Same contract as ParallelFor (ops.h): each index runs
// exactly once, on any thread, so results never depend on the thread count or on scheduling.
//
//   WorkerPool pool(/*threads=*/2);                 // the caller plus one worker
//   pool.Run(96, [&](int64_t task) { ... });        // returns when all 96 tasks are done
//   pool.Run(8, [&](int64_t task, int worker) { ... per_worker_state[worker] ... });   // worker: 0 = the caller
//
// Users: the batched transformer block (models/batched_block.h) and `tokvec encode`'s chunk workers, whose
// per-worker piece caches stay warm across batches (cli/encode_command.cc).
// Why: ParallelFor starts and joins std::threads on every call (~35 µs each, measured in a loop of 1000 calls),
// and a new thread starts with cold per-thread scratch (the attention step's 256 KB score block). Workers here
// spin briefly (kSpinRounds) after each loop, so the next loop of the same layer starts without a wake-up, then
// sleep on a condition variable.
// Not reentrant: one Run at a time (the owner calls it; a task must not call Run on the same pool).
#ifndef TOKVEC_BASE_WORKER_POOL_H_
#define TOKVEC_BASE_WORKER_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tokvec {

class WorkerPool {
 public:
  // `threads` counts the caller: threads - 1 workers are started (none for threads <= 1).
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(i) for i in [0, n) on the workers and the calling thread; returns when every call has returned.
  void Run(int64_t n, const std::function<void(int64_t)>& fn);
  // The same, telling each call which thread runs it: 0 for the caller, 1..threads()-1 for the workers (each
  // worker keeps its number for the pool's life), so callers can keep state per thread.
  void Run(int64_t n, const std::function<void(int64_t, int)>& fn);

 private:
  void WorkerLoop(int worker);
  void RunTasks(int worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};  // bumped by Run to start a loop
  std::atomic<int64_t> next_{0};         // next task index of the current loop
  std::atomic<int> running_{0};          // workers still inside the current loop
  const std::function<void(int64_t, int)>* fn_ = nullptr;  // current loop's body
  int64_t n_ = 0;                                      // current loop's task count
  bool stop_ = false;                                  // guarded by mutex_
};

}  // namespace tokvec

#endif  // TOKVEC_BASE_WORKER_POOL_H_
