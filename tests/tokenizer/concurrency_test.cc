// One shared Tokenizer used from several threads at once gives the same ids as one thread. Meaningful under
// ThreadSanitizer (scripts/sanitize.sh thread), where a data race in Encode/Decode fails the run; in other
// builds it still checks that results do not depend on which thread encodes.
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/bpe/piece_cache.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

// A byte-level tokenizer (gpt2 split) whose merges chain the bytes of `source` (e.g. "th", "the", "the ").
std::unique_ptr<Tokenizer> MakeByteTokenizer(std::string_view source, bool ranks) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  std::vector<BpeModel::MergePair> merges;
  auto id_of = [&](const std::string& bytes) -> TokenId {
    for (TokenId id = 0; id < tokens.size(); ++id) {
      if (tokens[id] == bytes) return id;
    }
    tokens.push_back(bytes);
    return static_cast<TokenId>(tokens.size() - 1);
  };
  for (size_t i = 0; i + 1 < source.size(); ++i) {
    std::string left(1, source[i]);
    for (size_t j = i + 1; j < source.size() && j < i + 5; ++j) {
      std::string right(1, source[j]);
      const size_t before = tokens.size();
      TokenId left_id = id_of(left), right_id = id_of(right);
      id_of(left + right);
      if (tokens.size() > before) merges.push_back({left_id, right_id});
      left += right;
    }
  }
  absl::StatusOr<BpeModel> bpe = ranks ? BpeModel::FromRanks(tokens) : BpeModel::FromMerges(tokens, merges);
  EXPECT_TRUE(bpe.ok()) << bpe.status();
  absl::StatusOr<std::unique_ptr<PreTokenizer>> split = MakeSplitPreTokenizer("gpt2");
  EXPECT_TRUE(split.ok()) << split.status();
  const TokenId special_id = static_cast<TokenId>(bpe->size());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(
      TokenizerSpec{.type = ModelType::kByte,
                    .bpe = std::move(*bpe),
                    .pre_tokenizer = std::move(*split),
                    .normalizer = nullptr,
                    .special_tokens = {{"<|endoftext|>", special_id}},
                    .unk_id = std::nullopt,
                    .end_of_word_id = std::nullopt,
                    .ignore_merges = false,
                    .source = "concurrency_test"});
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return std::move(*tokenizer);
}

// Seeded texts: words, Unicode, stray bytes, special tokens, and long runs without a split point.
std::vector<std::string> MakeTexts() {
  const std::vector<std::string> words = {"the", " cat", " sat", " on", " mat", "\u00e9t\u00e9", " \u65e5\u672c",
                                          "\xff", "<|endoftext|>", "\n\n", "  ", "123", "!?"};
  std::mt19937 rng(42);
  std::vector<std::string> texts;
  for (int i = 0; i < 120; ++i) {
    std::string text;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) text += words[rng() % words.size()];
    texts.push_back(text);
  }
  texts.push_back(std::string(5000, 'a'));     // One piece, heap path.
  texts.push_back(std::string(3000, '\x80'));  // Stray bytes.
  return texts;
}

void ExpectSameFromThreads(const Tokenizer& tokenizer, int n_threads) {
  const std::vector<std::string> texts = MakeTexts();
  EncodeOptions options;
  options.allow_all_special = true;
  std::vector<std::vector<TokenId>> expected;
  for (const std::string& text : texts) expected.push_back(tokenizer.Encode(text, options)->ids);

  std::vector<int> mismatches(n_threads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (size_t k = 0; k < texts.size(); ++k) {
          const size_t i = (k * 7 + static_cast<size_t>(t) * 13 + round) % texts.size();  // Each thread its order.
          absl::StatusOr<Encoding> encoding = tokenizer.Encode(texts[i], options);
          absl::StatusOr<std::string> decoded = tokenizer.Decode(expected[i]);
          if (!encoding.ok() || encoding->ids != expected[i] || !decoded.ok() || *decoded != texts[i]) {
            ++mismatches[t];
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < n_threads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(ConcurrencyTest, SharedByteTokenizerMergeListEncodesTheSameOnEveryThread) {
  std::unique_ptr<Tokenizer> tokenizer = MakeByteTokenizer("the cat sat on the mat \u00e9t\u00e9 aaaa", false);
  ExpectSameFromThreads(*tokenizer, 8);
}

TEST(ConcurrencyTest, SharedByteTokenizerRanksEncodesTheSameOnEveryThread) {
  std::unique_ptr<Tokenizer> tokenizer = MakeByteTokenizer("the cat sat on the mat \u00e9t\u00e9 aaaa", true);
  ExpectSameFromThreads(*tokenizer, 8);
}

// Caller-held caches as `tokvec encode` uses them: one shared cache read by every thread at once, one own cache
// per thread, folded into the shared one between rounds (no thread encodes then).
TEST(ConcurrencyTest, SharedPieceCacheReadByEveryThread) {
  std::unique_ptr<Tokenizer> tokenizer = MakeByteTokenizer("the cat sat on the mat \u00e9t\u00e9 aaaa", true);
  const std::vector<std::string> texts = MakeTexts();
  std::vector<std::vector<TokenId>> expected;
  for (const std::string& text : texts) expected.push_back(tokenizer->Encode(text)->ids);
  std::unique_ptr<PieceCache> shared = tokenizer->NewPieceCache();
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<PieceCache>> locals;
  for (int t = 0; t < kThreads; ++t) locals.push_back(tokenizer->NewPieceCache());
  std::vector<int> mismatches(kThreads, 0);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (size_t k = 0; k < texts.size(); ++k) {
          const size_t i = (k * 7 + static_cast<size_t>(t) * 13 + round) % texts.size();
          std::vector<TokenId> ids;
          if (!tokenizer->EncodeIds(texts[i], {}, &ids, 0, shared.get(), locals[t].get()).ok() || ids != expected[i]) {
            ++mismatches[t];
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const auto& local : locals) {
      shared->MergeFrom(*local);
      local->Clear();
    }
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace tokvec
