// One transformer block (transformer_block.h) over a batch of equal-length sequences at once: the
// projections and the feed-forward run as single GEMMs over all B·T rows (TiledLinearInto), attention runs
// per (sequence, head) pair in parallel. Same result as RunTransformerBlock on each sequence, within 1e-5
// (tests/models/batched_block_test.cc). PyTorch: nn.TransformerEncoderLayer(..., batch_first=True) on a
// [B, T, D] tensor.
//
//   // x: [B·T, D], sequence b in rows [b·T, (b+1)·T)
//   TOKVEC_ASSIGN_OR_RETURN(Matrix y, RunTransformerBlockBatched(weights, config, x.view(), /*batch=*/8,
//                                                                 /*threads=*/2));   // [B·T, D]
//
// Sequences of different lengths run together the same way (RunTransformerBlockRaggedInto): the GEMMs over all
// their rows, attention per (sequence, head).
//
// Supported: both norm placements, every activation, causal or not, rotary positions (each sequence from position
// 0, as RunTransformerBlock with first_position 0), every attention kind, per-layer RoPE, a skipped attention
// norm and the gated (GeGLU) feed-forward (pre-LN only; post-LN blocks take the plain feed-forward). Extra masks are not (use RunTransformerBlock per sequence).
#ifndef TOKVEC_MODELS_BATCHED_BLOCK_H_
#define TOKVEC_MODELS_BATCHED_BLOCK_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "base/worker_pool.h"
#include "kernels/huge_page_buffer.h"
#include "kernels/tensor.h"
#include "models/transformer_block.h"

namespace tokvec {

// Intermediate buffers of RunTransformerBlockBatched, kept between calls (e.g. across layers or repeated
// batches) so they are not allocated, page-faulted and zero-filled again each time: that was 5–7% of the
// 1-thread time of `tokvec bench layer` (perf: page faults, memset, kernel page-list work). The buffers are
// 2 MB-aligned and ask for transparent huge pages (huge_page_buffer.h). It also keeps the worker threads
// (worker_pool.h).
struct BatchedBlockWorkspace {
  HugePageBuffer qkv;     // [N, 3D]
  HugePageBuffer concat;  // [N, D] heads side by side
  HugePageBuffer hidden;  // [N, F] (gated feed-forward: [N, 2F])
  HugePageBuffer gated;   // [N, F], a gated feed-forward's act(input) · gate
  HugePageBuffer h;       // [N, D] after the first residual (post-LN) or LN2's input (pre-LN)
  std::unique_ptr<WorkerPool> pool;  // the block's threads, kept while `threads` stays the same
};

// x: [B·T, D] with x.rows divisible by `batch`. Errors: shapes (as ValidateTransformerBlock), a row count not
// divisible by batch. `workspace` may be null (buffers are then allocated for this call).
absl::StatusOr<Matrix> RunTransformerBlockBatched(const TransformerBlockWeights& w, const BlockConfig& config,
                                                  MatrixView x, int64_t batch, int threads,
                                                  BatchedBlockWorkspace* workspace = nullptr);

// The same into y ([B·T, D], may not overlap x), for callers that reuse the output buffer too (a stack of
// layers alternating two buffers; `tokvec bench layer`): a fresh zero-filled [B·T, D] Matrix per call was
// 1.4–1.8% of the 1-thread layer profile (memset).
absl::Status RunTransformerBlockBatchedInto(const TransformerBlockWeights& w, const BlockConfig& config,
                                            MatrixView x, int64_t batch, int threads,
                                            BatchedBlockWorkspace* workspace, float* y);

// Sequences of any lengths stacked in x: sequence i in the `lengths[i]` rows after those of sequences 0..i-1
// (the lengths add up to x.rows; InvalidArgument otherwise). A sequence's rows do not depend on the others: GEMM
// tiles never span two sequences and attention runs per sequence. y as above.
absl::Status RunTransformerBlockRaggedInto(const TransformerBlockWeights& w, const BlockConfig& config,
                                           MatrixView x, std::span<const int64_t> lengths, int threads,
                                           BatchedBlockWorkspace* workspace, float* y);

}  // namespace tokvec

#endif  // TOKVEC_MODELS_BATCHED_BLOCK_H_
