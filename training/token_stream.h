// The training data: a token stream and the windows cut from it.
//
// The stream is the concatenation of the encoded --data files in the order given, each followed by the
// tokenizer's end-of-text token when it has one (`<|endoftext|>`, else `</s>`). A batch row is a window of T + 1
// consecutive tokens (inputs are the first T, targets the last T, so targets are the inputs shifted by one).
//
// Row g of the run (g = (step·K + k)·B + r for micro-batch k of K, row r of B):
//   - in order (--no-shuffle): tokens [g·T, g·T + T + 1) of the stream, wrapping to its start at the end (with
//     K = 1 this is the (s·B + r)·T);
//   - shuffled: the stream is cut into W = ⌊(S - 1) / T⌋ windows starting at w·T; epoch e = ⌊g / W⌋ visits them
//     in a permutation drawn from (seed, e) (Fisher-Yates over splitmix64), row g takes window
//     perm_e[g mod W]. A row depends only on (seed, g), so a resumed run needs nothing but its step.
//
//   TOKVEC_ASSIGN_OR_RETURN(TokenStream stream, TokenStream::Encode(*tokenizer, {"a.txt", "b.txt"}));
//   MicroBatch batch = stream.Batch(/*first_row=*/g, B, T, /*shuffle=*/true, seed);
#ifndef TOKVEC_TRAINING_TOKEN_STREAM_H_
#define TOKVEC_TRAINING_TOKEN_STREAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"
#include "training/train_step.h"

namespace tokvec::training {

// The visiting order of `count` windows (or --lines examples) in epoch `epoch` of a shuffled run: a Fisher-Yates
// permutation drawn from splitmix64 seeded by (seed, epoch).
std::vector<int64_t> EpochOrder(int64_t count, uint64_t seed, int64_t epoch);

// The end-of-text id of a tokenizer: `<|endoftext|>`, else `</s>`, else none.
std::optional<int32_t> EndOfTextId(const Tokenizer& tokenizer);
// The mask id for --objective mlm: the special token `<mask>` (RoBERTa), else `[MASK]` (BERT), else a vocabulary
// entry spelled so (a RoBERTa vocab.json + merges.txt), else none.
std::optional<int32_t> MaskTokenId(const Tokenizer& tokenizer);

// Masked LM (Devlin et al. 2019, §3.1; dynamic masking as RoBERTa, Liu et al. 2019): each position t of row g
// (first_row + r) is chosen with probability 0.15 and then predicts its own token; a chosen input becomes mask_id
// (80%), a uniform random id in [0, vocab) (10%) or stays (10%). Targets of the other positions are
// kIgnoreIndex. Every draw is counter-based on (seed, g, t), so a row's masking does not depend on the batch,
// the thread count or a resume. batch.inputs are the row's tokens; batch.targets are overwritten.
void ApplyMlmMasking(MicroBatch& batch, int64_t first_row, int32_t mask_id, int64_t vocab, uint64_t seed);

class TokenStream {
 public:
  // Encodes every file (special-token text is ordinary text) and appends the end-of-text id after each.
  // Streaming: each file is memory-mapped and encoded by the library's chunked encoder
  // (tokenizer/batch/chunked_encoder.h) in chunks of about chunk_bytes, cut where Tokenizer::FindCut proves the ids
  // of the parts are the ids of the whole (a file that cannot be cut is encoded at once); the ids go to an unnamed
  // temporary file (std::tmpfile: removed when closed, nothing left behind) that is then mapped read-only. So
  // memory holds one batch of chunks' ids (16 chunks), not the corpus's: the mapped pages are the kernel's clean
  // file cache, reclaimable under pressure.
  static absl::StatusOr<TokenStream> Encode(const Tokenizer& tokenizer, const std::vector<std::string>& files,
                                            size_t chunk_bytes = size_t{1} << 20);
  explicit TokenStream(std::vector<int32_t> tokens);

  int64_t size() const { return static_cast<int64_t>(view_.size()); }
  std::span<const int32_t> tokens() const { return view_; }
  // W: whole windows of T + 1 tokens at stride T.
  int64_t Windows(int64_t T) const { return size() > T ? (size() - 1) / T : 0; }
  // Rows [first_row, first_row + B) as a [B, T] micro-batch (see the file comment). Needs size() > T.
  MicroBatch Batch(int64_t first_row, int64_t B, int64_t T, bool shuffle, uint64_t seed) const;

 private:
  TokenStream(std::shared_ptr<const int32_t> mapping, size_t size);

  std::shared_ptr<const int32_t> storage_;  // a vector's data or the mapped ids file (shared: copies are cheap)
  std::span<const int32_t> view_;            // [S]
};

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_TOKEN_STREAM_H_
