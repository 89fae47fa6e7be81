#include "server/batcher.h"

#include <algorithm>
#include <utility>

namespace tokvec::server {

Batcher::Batcher(const ModelDirectory& dir, BatcherOptions options)
    : dir_(dir), options_(std::move(options)), worker_([this] { Work(); }) {}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

absl::StatusOr<std::vector<TextVectors>> Batcher::Embed(std::vector<std::vector<uint32_t>> sequences) {
  return Embed(std::move(sequences), {.pooling = options_.choice.pooling,
                                      .normalize = options_.choice.normalize,
                                      .dense = options_.choice.dense});
}

absl::StatusOr<std::vector<TextVectors>> Batcher::Embed(std::vector<std::vector<uint32_t>> sequences,
                                                        PoolRequest pool) {
  return Embed(std::move(sequences), {}, std::move(pool));
}

absl::StatusOr<std::vector<TextVectors>> Batcher::Embed(std::vector<std::vector<uint32_t>> sequences,
                                                        std::vector<std::vector<uint8_t>> type_ids,
                                                        PoolRequest pool) {
  Job job;
  job.pool = pool;
  job.type_ids = std::move(type_ids);
  for (const auto& s : sequences) job.tokens += s.size();
  job.sequences = std::move(sequences);
  std::future<absl::StatusOr<std::vector<TextVectors>>> result = job.done.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return result.get();
}

size_t Batcher::queue_length() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void Batcher::Work() {
  for (;;) {
    std::vector<Job> jobs;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to finish
      // The oldest request, then the next ones in arrival order while they fit in the token budget.
      size_t tokens = 0;
      while (!queue_.empty() &&
             (jobs.empty() || tokens + queue_.front().tokens <= static_cast<size_t>(options_.max_batch_tokens))) {
        tokens += queue_.front().tokens;
        jobs.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    Run(jobs);
  }
}

absl::StatusOr<std::vector<TextVectors>> Batcher::Pool(std::vector<TextVectors> hidden, const PoolRequest& pool) {
  if (pool.head != nullptr) {
    for (TextVectors& v : hidden) {
      const std::vector<float> logits = pool.head->Logits(v.vectors.view());
      v.vectors = Matrix(1, static_cast<int64_t>(logits.size()));
      std::copy(logits.begin(), logits.end(), v.vectors.data());
    }
    return hidden;
  }
  if (pool.pooling == Pooling::kNone && !pool.normalize) return hidden;
  for (TextVectors& v : hidden) {
    EmbeddedText embedded{.ids = std::move(v.ids), .tokens = std::move(v.tokens), .hidden = std::move(v.vectors)};
    absl::StatusOr<TextVectors> pooled =
        PoolEmbedded(std::move(embedded), pool.pooling, pool.normalize, pool.pool_skip, pool.dense.get());
    if (!pooled.ok()) return pooled.status();
    v = std::move(*pooled);
  }
  return hidden;
}

void Batcher::Run(std::vector<Job>& jobs) {
  // Hidden states for all; each job pools its own (Pool).
  const EmbedTextsOptions embed{.pooling = Pooling::kNone, .threads = options_.threads, .item_name = "input"};
  std::vector<std::vector<uint32_t>> all;  // copies: a failed batch is re-run from the jobs' own sequences
  std::vector<std::vector<uint8_t>> all_types;  // when some job has type ids: each sequence's (zeros for the others)
  bool typed = false;
  for (const Job& job : jobs) typed = typed || !job.type_ids.empty();
  size_t tokens = 0;
  for (const Job& job : jobs) {
    tokens += job.tokens;
    all.insert(all.end(), job.sequences.begin(), job.sequences.end());
    if (!typed) continue;
    for (size_t k = 0; k < job.sequences.size(); ++k) {
      all_types.push_back(job.type_ids.empty() ? std::vector<uint8_t>(job.sequences[k].size(), 0) : job.type_ids[k]);
    }
  }
  const size_t sequences = all.size();
  absl::StatusOr<std::vector<TextVectors>> results =
      EmbedIdSequences(dir_, std::move(all), embed, std::move(all_types));
  if (options_.on_batch) options_.on_batch(jobs.size(), sequences, tokens);
  if (!results.ok()) {
    // Some request broke the batch: run each alone, so only that one gets its error.
    for (Job& job : jobs) {
      absl::StatusOr<std::vector<TextVectors>> alone =
          jobs.size() == 1 ? std::move(results) : EmbedIdSequences(dir_, job.sequences, embed, job.type_ids);
      job.done.set_value(alone.ok() ? Pool(*std::move(alone), job.pool) : alone);
    }
    return;
  }
  size_t next = 0;
  for (Job& job : jobs) {
    std::vector<TextVectors> mine;
    mine.reserve(job.sequences.size());
    for (size_t k = 0; k < job.sequences.size(); ++k) mine.push_back(std::move((*results)[next++]));
    job.done.set_value(Pool(std::move(mine), job.pool));
  }
}

}  // namespace tokvec::server
