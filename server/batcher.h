// Dynamic batching: embeddings requests from many connections, queued in arrival order, run together through
// the library's batched forward (EmbedIdSequences, pipeline/embed_texts.h) up to a token budget. Reranking and
// classification requests share the queue: their sequences carry type ids, and a PoolRequest with a head turns
// each sequence's hidden states into its logits.
//
//   Batcher batcher(dir, {.choice = {.pooling = Pooling::kMean}, .threads = 2, .max_batch_tokens = 8192});
//   // on any connection's thread:
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> out, batcher.Embed({ids_a, ids_b}));  // blocks until done
//
// Why it changes no result: EmbedIdSequences groups sequences (of any lengths for GPT-2 and the encoders, of equal
// length for the decoders) and runs each group through Model::ForwardBatch, whose per-sequence output does not
// depend on the other sequences of its batch (GEMM tiles never mix sequences on the OpenBLAS path, the packed
// GEMM gives a row the same bits in any tile, attention runs per sequence; checked bit for bit by
// tests/models/model_test.cc, tests/server/batcher_test.cc and scripts/serve_check.sh against
// `tokvec embed --lines`).
//
// One worker thread per model takes the oldest request, then the next ones while their tokens fit in
// max_batch_tokens (a single request larger than the budget runs alone), embeds them with `threads` threads,
// and hands each request its own results. max_batch_tokens 1 therefore runs one request at a time (batching
// off). A batch that fails is re-run one request at a time so an error reaches only its own request. The
// destructor finishes every queued request, then stops the worker.
#ifndef TOKVEC_SERVER_BATCHER_H_
#define TOKVEC_SERVER_BATCHER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "models/sequence_classifier.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"

namespace tokvec::server {

// How one request's sequences are pooled: the batch runs every sequence to its [T, D] hidden states, then each
// request pools its own (PoolEmbedded), so requests asking for different poolings share a forward pass.
struct PoolRequest {
  Pooling pooling = Pooling::kNone;  // kNone: every token's vector (/embed_all)
  bool normalize = false;
  int64_t pool_skip = 0;  // tokens left out of mean/max pooling (a prompt under include_prompt false)
  std::shared_ptr<const std::vector<SentenceDense>> dense;  // the model's Dense modules after pooling (or null)
  // A classification head: each sequence's result is its logits, [1, L] (pooling and the rest are not used). Must
  // outlive the request.
  const SequenceClassifier* head = nullptr;
};

struct BatcherOptions {
  PoolingChoice choice;  // the pooling of Embed(sequences) without a PoolRequest
  int threads = 1;
  int64_t max_batch_tokens = 8192;
  // Called after each batch with its size, from the worker thread.
  std::function<void(size_t requests, size_t sequences, size_t tokens)> on_batch;
};

class Batcher {
 public:
  // `dir` must outlive the batcher.
  Batcher(const ModelDirectory& dir, BatcherOptions options);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // The pooled (and normalised, as chosen) vectors of each sequence, in order. Sequences must already be
  // checked (non-empty, within the model's length, ids in the vocabulary). Blocks until the batch holding them
  // has run.
  absl::StatusOr<std::vector<TextVectors>> Embed(std::vector<std::vector<uint32_t>> sequences);
  // The same, pooled as `pool` says.
  absl::StatusOr<std::vector<TextVectors>> Embed(std::vector<std::vector<uint32_t>> sequences, PoolRequest pool);
  // The same with each sequence's token type ids ([N] x [T_i], as EncodeClassifierInputs gives them).
  absl::StatusOr<std::vector<TextVectors>> Embed(std::vector<std::vector<uint32_t>> sequences,
                                                 std::vector<std::vector<uint8_t>> type_ids, PoolRequest pool);

  // Requests waiting for the worker.
  size_t queue_length() const;

 private:
  struct Job {
    std::vector<std::vector<uint32_t>> sequences;
    std::vector<std::vector<uint8_t>> type_ids;  // empty: all zeros
    PoolRequest pool;
    size_t tokens = 0;
    std::promise<absl::StatusOr<std::vector<TextVectors>>> done;
  };
  void Work();
  void Run(std::vector<Job>& jobs);
  // Pools a job's hidden states ([T, D] each) as the job asks; the first error fails the job.
  static absl::StatusOr<std::vector<TextVectors>> Pool(std::vector<TextVectors> hidden, const PoolRequest& pool);

  const ModelDirectory& dir_;
  const BatcherOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tokvec::server

#endif  // TOKVEC_SERVER_BATCHER_H_
