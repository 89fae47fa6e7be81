// The per-thread piece cache must not change any id or offset: encodings with the cache (cold and warm, on
// several threads, alternating two tokenizers on one thread) equal encodings with every cache turned off.
#include "tokenizer/models/bpe/piece_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool SameEncoding(const Encoding& a, const Encoding& b) {
  if (a.ids != b.ids || a.offsets.size() != b.offsets.size()) return false;
  for (size_t i = 0; i < a.offsets.size(); ++i) {
    if (a.offsets[i].begin != b.offsets[i].begin || a.offsets[i].end != b.offsets[i].end) return false;
  }
  return true;
}

class PieceCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path shared(TOKVEC_SHARED_DIR);
    if (!std::filesystem::exists(shared / "vocab" / "gpt2.tiktoken") || !std::filesystem::is_directory(shared / "corpora")) {
      GTEST_SKIP() << "shared vocab/corpora not found under " << shared;
    }
    for (const char* name : {"gpt2", "cl100k_base"}) {
      absl::StatusOr<std::unique_ptr<Tokenizer>> t = Tokenizer::Load((shared / "vocab" / (std::string(name) + ".tiktoken")).string());
      ASSERT_TRUE(t.ok()) << t.status();
      tokenizers_.push_back(std::move(*t));
    }
    // Text with many repeated pieces, a few long ones and ill-formed bytes.
    text_ = ReadText(shared / "corpora" / "botchan.txt").substr(0, 200000) + "\xFF\xC3 " +
            ReadText(shared / "corpora" / "udhr" / "jpn.txt") + std::string(300, 'a') + " aaaa";
    for (const auto& tokenizer : tokenizers_) {
      PieceCache::SetEnabledForTesting(false);
      absl::StatusOr<Encoding> e = tokenizer->Encode(text_);
      PieceCache::SetEnabledForTesting(true);
      ASSERT_TRUE(e.ok());
      expected_.push_back(std::move(*e));
    }
  }
  void TearDown() override { PieceCache::SetEnabledForTesting(true); }

  std::vector<std::unique_ptr<Tokenizer>> tokenizers_;
  std::string text_;
  std::vector<Encoding> expected_;
};

TEST_F(PieceCacheTest, ColdAndWarmAndAlternatingEqualUncached) {
  for (int round = 0; round < 3; ++round) {
    for (size_t t = 0; t < tokenizers_.size(); ++t) {  // alternating empties this thread's cache each time
      for (int twice = 0; twice < 2; ++twice) {          // the second encoding is served from the cache
        absl::StatusOr<Encoding> e = tokenizers_[t]->Encode(text_);
        ASSERT_TRUE(e.ok());
        EXPECT_TRUE(SameEncoding(*e, expected_[t])) << "tokenizer " << t << " round " << round << " pass " << twice;
      }
    }
  }
}

TEST_F(PieceCacheTest, EveryThreadGetsTheSameIds) {
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int c = 0; c < 4; ++c) {
    threads.emplace_back([&, c] {
      for (int k = 0; k < 3; ++k) {
        const size_t t = static_cast<size_t>(c + k) % tokenizers_.size();
        absl::StatusOr<Encoding> e = tokenizers_[t]->Encode(text_);
        if (!e.ok() || !SameEncoding(*e, expected_[t])) ++mismatches[static_cast<size_t>(c)];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int c = 0; c < 4; ++c) EXPECT_EQ(mismatches[static_cast<size_t>(c)], 0) << "thread " << c;
}

// Caller-held caches (how `tokvec encode` shares pieces between its workers): threads read one shared cache and
// learn into their own; between rounds the own caches are folded into the shared one. Every round's ids equal the
// uncached ones, and a cache of the other tokenizer is ignored rather than misused.
TEST_F(PieceCacheTest, SharedAndLocalCachesAcrossThreadsEqualUncached) {
  for (size_t t = 0; t < tokenizers_.size(); ++t) {
    const Tokenizer& tokenizer = *tokenizers_[t];
    std::unique_ptr<PieceCache> shared = tokenizer.NewPieceCache();
    std::vector<std::unique_ptr<PieceCache>> locals;
    for (int c = 0; c < 3; ++c) locals.push_back(tokenizer.NewPieceCache());
    for (int round = 0; round < 3; ++round) {
      std::vector<int> mismatches(locals.size(), 0);
      std::vector<std::thread> threads;
      for (size_t c = 0; c < locals.size(); ++c) {
        threads.emplace_back([&, c] {
          std::vector<TokenId> ids;
          // Thread c encodes a different part first, so the local caches differ before they are folded.
          const size_t cut = text_.size() * c / locals.size();
          if (!tokenizer.EncodeIds(text_.substr(0, cut), {}, &ids, 0, shared.get(), locals[c].get()).ok()) ++mismatches[c];
          ids.clear();
          if (!tokenizer.EncodeIds(text_, {}, &ids, 0, shared.get(), locals[c].get()).ok() || ids != expected_[t].ids) {
            ++mismatches[c];
          }
        });
      }
      for (std::thread& thread : threads) thread.join();
      for (size_t c = 0; c < locals.size(); ++c) EXPECT_EQ(mismatches[c], 0) << "tokenizer " << t << " round " << round;
      for (const auto& local : locals) {
        shared->MergeFrom(*local);
        local->Clear();
      }
      EXPECT_GT(shared->size(), 1000u);
    }
    // The other tokenizer's caches (full of this one's pieces) are not used.
    const Tokenizer& other = *tokenizers_[1 - t];
    std::vector<TokenId> ids;
    ASSERT_TRUE(other.EncodeIds(text_, {}, &ids, 0, shared.get(), locals[0].get()).ok());
    EXPECT_EQ(ids, expected_[1 - t].ids);
  }
}

}  // namespace
}  // namespace tokvec
