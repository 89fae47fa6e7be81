// The batcher (server/batcher.h), from many threads (also run under ThreadSanitizer: scripts/sanitize.sh thread):
// requests batched together get exactly the bits that `tokvec embed --lines` (EmbedTexts) gives each text; a
// request that fails does not fail its batch-mates.
#include "server/batcher.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pipeline/cross_encoder.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "tests/attention/mixed_texts_testutil.h"

namespace tokvec::server {
namespace {


ModelDirectory LoadDir(const std::string& name) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(std::string(TOKVEC_SOURCE_DIR) +
                                                            "/tests/attention/testdata/" + name);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return std::move(*dir);
}

TEST(BatcherTest, ConcurrentRequestsGetTheBitsOfEmbedTexts) {
  ModelDirectory dir = LoadDir("hf_roberta_f32");
  const std::vector<std::string> texts = testing::MixedLengthTexts();
  const EmbedTextsOptions options{.pooling = Pooling::kMean, .normalize = true};
  std::vector<std::string_view> views(texts.begin(), texts.end());
  absl::StatusOr<std::vector<TextVectors>> expected = EmbedTexts(dir, views, options);  // `embed --lines`
  ASSERT_TRUE(expected.ok()) << expected.status();

  std::atomic<size_t> batches{0}, most_requests{0};
  Batcher batcher(dir, {.choice = {.pooling = Pooling::kMean, .normalize = true},
                        .threads = 2,
                        .max_batch_tokens = 4096,
                        .on_batch = [&](size_t requests, size_t, size_t) {
                          ++batches;
                          if (requests > most_requests) most_requests = requests;
                        }});
  // 8 clients, each sending 2-text requests for its share of the texts.
  std::vector<std::vector<TextVectors>> got(texts.size());
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      for (size_t i = static_cast<size_t>(c) * 2; i < texts.size(); i += 16) {
        absl::StatusOr<std::vector<TextVectors>> r =
            batcher.Embed({*dir.Tokenize(texts[i]), *dir.Tokenize(texts[i + 1])});
        ASSERT_TRUE(r.ok()) << r.status();
        ASSERT_EQ(r->size(), 2u);
        got[i].push_back(std::move((*r)[0]));
        got[i + 1].push_back(std::move((*r)[1]));
      }
    });
  }
  for (auto& t : clients) t.join();
  for (size_t i = 0; i < texts.size(); ++i) {
    ASSERT_EQ(got[i].size(), 1u);
    EXPECT_EQ(got[i][0].vectors.storage(), (*expected)[i].vectors.storage()) << "text " << i;
    EXPECT_EQ(got[i][0].ids, (*expected)[i].ids);
  }
  EXPECT_GE(batches.load(), 1u);
  std::printf("%zu batches for %zu requests, at most %zu requests in one\n", batches.load(), texts.size() / 2,
              most_requests.load());
}

// Rerank requests (pairs with type ids and a head) and embeddings requests of the same cross-encoder share
// batches; each gets the bits of its own library call (ClassifierLogits, as `tokvec rerank`; EmbedTexts).
TEST(BatcherTest, RerankAndEmbedRequestsShareBatchesAndKeepTheirBits) {
  absl::StatusOr<CrossEncoder> ranker =
      CrossEncoder::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_bert_cross");
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  const ModelDirectory& dir = ranker->directory();
  const std::vector<std::string> texts = testing::MixedLengthTexts();
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  const std::vector<std::string_view> queries(texts.size(), "your cat is lovely");
  absl::StatusOr<std::vector<std::vector<float>>> expected_logits = ranker->Logits(queries, views, 1);
  ASSERT_TRUE(expected_logits.ok()) << expected_logits.status();
  absl::StatusOr<std::vector<TextVectors>> expected_vectors =
      EmbedTexts(dir, views, {.pooling = Pooling::kMean, .threads = 1});
  ASSERT_TRUE(expected_vectors.ok()) << expected_vectors.status();
  std::atomic<size_t> mixed{0};
  Batcher batcher(dir, {.choice = {.pooling = Pooling::kMean}, .threads = 2, .max_batch_tokens = 4096,
                        .on_batch = [&](size_t requests, size_t, size_t) { mixed += requests > 1; }});
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&, c] {
      for (size_t i = static_cast<size_t>(c); i < texts.size(); i += 6) {
        if (c % 2 == 0) {
          absl::StatusOr<ClassifierInputs> inputs = EncodeClassifierInputs(dir, {queries[i]}, {views[i]});
          ASSERT_TRUE(inputs.ok()) << inputs.status();
          absl::StatusOr<std::vector<TextVectors>> r = batcher.Embed(
              std::move(inputs->ids), std::move(inputs->type_ids), PoolRequest{.head = &ranker->head()});
          ASSERT_TRUE(r.ok()) << r.status();
          EXPECT_EQ((*r)[0].vectors.storage(), (*expected_logits)[i]) << "pair " << i;
        } else {
          absl::StatusOr<std::vector<TextVectors>> r = batcher.Embed({*dir.Tokenize(texts[i])});
          ASSERT_TRUE(r.ok()) << r.status();
          EXPECT_EQ((*r)[0].vectors.storage(), (*expected_vectors)[i].vectors.storage()) << "text " << i;
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  std::printf("%zu batches held more than one request\n", mixed.load());
}

TEST(BatcherTest, AFailingRequestFailsAlone) {
  ModelDirectory dir = LoadDir("hf_gpt2_f32");
  Batcher batcher(dir, {.choice = {.pooling = Pooling::kLast}, .threads = 1, .max_batch_tokens = 100000});
  const int64_t max_len = dir.model().config().max_len;
  std::vector<uint32_t> too_long(static_cast<size_t>(max_len + 1), 64);
  std::vector<std::thread> clients;
  std::atomic<int> ok{0}, failed{0};
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&, c] {
      for (int k = 0; k < 5; ++k) {
        absl::StatusOr<std::vector<TextVectors>> r =
            batcher.Embed({c == 0 ? too_long : std::vector<uint32_t>{64, 261}});
        (r.ok() ? ok : failed)++;
        if (c == 0) {
          EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
        } else {
          EXPECT_TRUE(r.ok()) << r.status();
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), 25);
  EXPECT_EQ(failed.load(), 5);
}

}  // namespace
}  // namespace tokvec::server
