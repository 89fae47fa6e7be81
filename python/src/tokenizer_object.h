// What a Python tokvec.Tokenizer holds: the C++ Tokenizer (immutable, shared by threads), a kept worker pool for
// encode_batch, and the spelling -> id table token_to_id builds on first use.
#ifndef TOKVEC_PYTHON_SRC_TOKENIZER_OBJECT_H_
#define TOKVEC_PYTHON_SRC_TOKENIZER_OBJECT_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/worker_pool.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::python {

class TokenizerObject {
 public:
  explicit TokenizerObject(std::unique_ptr<Tokenizer> tokenizer) : tokenizer_(std::move(tokenizer)) {}
  const Tokenizer& tokenizer() const { return *tokenizer_; }

  // Calls fn with a pool of `threads` threads: the kept one when it is free, else one of its own. The pool is kept
  // between calls so that its threads' piece caches stay warm (a fresh thread merges every piece again; tokvec
  // encode measured 2 threads at 0.89x of 1 with a pool per batch, base/worker_pool.h).
  void WithPool(int threads, const std::function<void(WorkerPool*)>& fn);
  // The id of a token spelled as TokenSpelling shows it (`Ġworld`, `er</w>`, `<|endoftext|>`).
  std::optional<TokenId> TokenToId(const std::string& spelling) const;

 private:
  std::unique_ptr<Tokenizer> tokenizer_;
  std::mutex pool_mutex_;
  std::unique_ptr<WorkerPool> pool_;  // guarded by pool_mutex_
  mutable std::once_flag spellings_once_;
  mutable absl::flat_hash_map<std::string, TokenId> spellings_;  // written once under spellings_once_
};

}  // namespace tokvec::python

#endif  // TOKVEC_PYTHON_SRC_TOKENIZER_OBJECT_H_
