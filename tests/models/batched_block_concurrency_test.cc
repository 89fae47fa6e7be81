// The batched block's worker pool (worker_pool.h) under concurrent callers: several threads each run
// RunTransformerBlockBatched with 2 or 3 threads, some with a kept workspace (its pool reused across rounds),
// some without, and every result must be bit-identical to a 1-thread run. Part of the tsan suite
// (scripts/sanitize.sh thread) through the *concurrency_test.cc glob.
#include <gtest/gtest.h>

#include <span>
#include <thread>
#include <vector>

#include "embeddings/random_init.h"
#include "models/batched_block.h"

namespace tokvec {
namespace {

std::span<const float> Span(const Matrix& m) { return {m.data(), static_cast<size_t>(m.size())}; }

TEST(BatchedBlockConcurrencyTest, ConcurrentCallersGetOneThreadBits) {
  constexpr int64_t kD = 32, kF = 64, kBatch = 3, kSeqLen = 24;
  NormalSampler s(21);
  const Matrix qkv = s.Matrix(3 * kD, kD, 0.1f), out = s.Matrix(kD, kD, 0.1f), up = s.Matrix(kF, kD, 0.1f),
               down = s.Matrix(kD, kF, 0.1f), bias = s.Matrix(1, 3 * kD, 0.1f);
  Matrix ones(1, kD), zeros(1, kD);
  for (float& g : ones.storage()) g = 1.0f;
  TransformerBlockWeights w;
  w.attention.qkv = {.weight = qkv.view(), .bias = Span(bias)};
  w.attention.out = {.weight = out.view()};
  w.feed_forward.up = {.weight = up.view()};
  w.feed_forward.down = {.weight = down.view()};
  w.attention_norm = w.feed_forward_norm = {.gamma = Span(ones), .beta = Span(zeros)};
  const BlockConfig config{.n_heads = 4, .norm = NormPlacement::kPostLN, .activation = Activation::kRelu};
  const Matrix x = s.Matrix(kBatch * kSeqLen, kD, 1.0f);  // [B·T, D]
  absl::StatusOr<Matrix> expected = RunTransformerBlockBatched(w, config, x.view(), kBatch, 1);
  ASSERT_TRUE(expected.ok()) << expected.status();

  constexpr int kCallers = 4, kRounds = 5;
  std::vector<int> mismatches(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      BatchedBlockWorkspace workspace;
      for (int round = 0; round < kRounds; ++round) {
        const int threads = 2 + (c + round) % 2;
        absl::StatusOr<Matrix> y = RunTransformerBlockBatched(w, config, x.view(), kBatch, threads,
                                                              c % 2 == 0 ? &workspace : nullptr);
        if (!y.ok() || y->storage() != expected->storage()) ++mismatches[static_cast<size_t>(c)];
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(mismatches[static_cast<size_t>(c)], 0) << "caller " << c;
}

}  // namespace
}  // namespace tokvec
