// The data rule of `tokvec fit`: the stream, the in-order window formula, wrapping, and shuffled epochs.
#include "training/token_stream.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "training/kernels.h"
#include "training/trainer_state.h"

namespace tokvec::training {
namespace {

TokenStream Counting(int32_t n) {
  std::vector<int32_t> tokens(static_cast<size_t>(n));
  std::iota(tokens.begin(), tokens.end(), 0);
  return TokenStream(tokens);
}

TEST(TokenStreamTest, InOrderRowsFollowTheIssueFormula) {
  const TokenStream stream = Counting(100);
  const int64_t B = 3, T = 4;
  for (int64_t s = 0; s < 20; ++s) {
    const MicroBatch batch = stream.Batch(s * B, B, T, /*shuffle=*/false, 0);
    for (int64_t r = 0; r < B; ++r) {
      for (int64_t t = 0; t < T; ++t) {
        // tokens [(s·B + r)·T, (s·B + r)·T + T + 1) of the stream, wrapping: inputs the first T, targets the last T
        const int64_t first = (s * B + r) * T + t;
        EXPECT_EQ(batch.inputs[r * T + t], first % 100) << "step " << s << " row " << r;
        EXPECT_EQ(batch.targets[r * T + t], (first + 1) % 100) << "step " << s << " row " << r;
      }
    }
  }
}

TEST(TokenStreamTest, ShuffledEpochVisitsEveryWindowOnceAndDependsOnSeed) {
  const TokenStream stream = Counting(101);  // W = 100 / 4 = 25 windows
  const int64_t T = 4, W = stream.Windows(T);
  ASSERT_EQ(W, 25);
  const MicroBatch epoch0 = stream.Batch(0, W, T, true, 7);
  std::set<int32_t> starts;
  for (int64_t r = 0; r < W; ++r) {
    starts.insert(epoch0.inputs[r * T]);
    EXPECT_EQ(epoch0.inputs[r * T] % T, 0);
    for (int64_t t = 0; t < T; ++t) EXPECT_EQ(epoch0.targets[r * T + t], epoch0.inputs[r * T + t] + 1);
  }
  EXPECT_EQ(starts.size(), 25u);
  const MicroBatch epoch1 = stream.Batch(W, W, T, true, 7);
  const MicroBatch other_seed = stream.Batch(0, W, T, true, 8);
  EXPECT_NE(epoch0.inputs, epoch1.inputs);
  EXPECT_NE(epoch0.inputs, other_seed.inputs);
  // Row g does not depend on how rows are grouped into batches (what --resume relies on).
  for (int64_t g = 0; g < 2 * W; g += 5) {
    const MicroBatch one = stream.Batch(g, 1, T, true, 7);
    const MicroBatch& whole = g < W ? epoch0 : epoch1;
    EXPECT_EQ(one.inputs[0], whole.inputs[(g % W) * T]) << g;
  }
}

TEST(TokenStreamTest, MlmMaskingFollowsBertsProportionsAndIsPerRow) {
  const TokenStream stream = Counting(5001);
  const int64_t B = 50, T = 100, V = 5001, mask = 5000;
  MicroBatch batch = stream.Batch(0, B, T, false, 0);
  const std::vector<int32_t> original = batch.inputs;
  ApplyMlmMasking(batch, 0, mask, V, 9);
  int64_t chosen = 0, masked = 0, kept = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    if (batch.targets[i] == kIgnoreIndex) {
      EXPECT_EQ(batch.inputs[i], original[i]);
      continue;
    }
    ++chosen;
    EXPECT_EQ(batch.targets[i], original[i]);
    masked += batch.inputs[i] == mask;
    kept += batch.inputs[i] == original[i];
    EXPECT_GE(batch.inputs[i], 0);
    EXPECT_LT(batch.inputs[i], V);
  }
  EXPECT_NEAR(static_cast<double>(chosen) / (B * T), 0.15, 0.015);
  EXPECT_NEAR(static_cast<double>(masked) / chosen, 0.8, 0.04);
  EXPECT_NEAR(static_cast<double>(kept) / chosen, 0.1, 0.03);
  // Row 7 alone gets the same masking as inside the batch.
  MicroBatch one = stream.Batch(7, 1, T, false, 0);
  ApplyMlmMasking(one, 7, mask, V, 9);
  EXPECT_TRUE(std::equal(one.inputs.begin(), one.inputs.end(), batch.inputs.begin() + 7 * T));
  EXPECT_TRUE(std::equal(one.targets.begin(), one.targets.end(), batch.targets.begin() + 7 * T));
}

TEST(TrainerStateTest, RoundTripsAndNamesBadKeys) {
  const TrainerState state{.step = 3, .total_steps = 6, .seq_len = 16, .batch = 4, .grad_accum = 2,
                           .seed = 18446744073709551615ULL, .shuffle = false, .optimizer = "sgd", .tokens_seen = 99};
  auto parsed = ParseTrainerState(TrainerStateToJson(state), "state.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->step, 3);
  EXPECT_EQ(parsed->seed, state.seed);
  EXPECT_EQ(parsed->optimizer, "sgd");
  EXPECT_FALSE(parsed->shuffle);
  EXPECT_EQ(TrainerStateToJson(*parsed), TrainerStateToJson(state));
  auto bad = ParseTrainerState(R"({"step": "3"})", "state.json");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'step'"), std::string::npos) << bad.status();
  EXPECT_FALSE(ParseTrainerState("[1, 2", "state.json").ok());
  std::string past = TrainerStateToJson(state);
  past.replace(past.find("\"step\": 3"), 9, "\"step\": 9");
  EXPECT_FALSE(ParseTrainerState(past, "state.json").ok());
}

// Streaming encodes each file in chunks cut by Tokenizer::FindCut: the stream must be the whole files' ids, file
// after file, each followed by end-of-text. Checked on the shared corpora (English, Japanese, Wikipedia) with
// GPT-2's and cl100k's vocabularies and 64 KB chunks (dozens of cuts per file).
TEST(TokenStreamTest, ChunkedEncodingEqualsEncodingWholeFiles) {
  const std::string shared = TOKVEC_SHARED_DIR;
  if (!std::filesystem::exists(shared + "/vocab/gpt2.tiktoken")) {
    GTEST_SKIP() << "needs ../shared (vocab/, corpora/); not found at " << shared;
  }
  const std::vector<std::string> files = {shared + "/corpora/gutenberg-big.txt",
                                          shared + "/corpora/wagahaiwa_nekodearu.txt",
                                          shared + "/corpora/wikitext2-test.txt"};
  for (const char* vocab : {"gpt2.tiktoken", "cl100k_base.tiktoken"}) {
    SCOPED_TRACE(vocab);
    auto tokenizer = Tokenizer::Load(shared + "/vocab/" + vocab);
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    auto stream = TokenStream::Encode(**tokenizer, files, /*chunk_bytes=*/64 << 10);
    ASSERT_TRUE(stream.ok()) << stream.status();
    std::vector<int32_t> whole;
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::vector<TokenId> ids;
      ASSERT_TRUE((*tokenizer)->EncodeIds(text, {}, &ids).ok());
      whole.insert(whole.end(), ids.begin(), ids.end());
      whole.push_back(static_cast<int32_t>(*EndOfTextId(**tokenizer)));
    }
    ASSERT_EQ(stream->size(), static_cast<int64_t>(whole.size()));
    EXPECT_TRUE(std::equal(whole.begin(), whole.end(), stream->tokens().begin()));
  }
}

}  // namespace
}  // namespace tokvec::training
