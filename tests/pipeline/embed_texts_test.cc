// EmbedTexts: sentence-transformers pooling equals PyTorch's (the committed reference), batched texts equal each
// text embedded on its own, the result does not depend on the thread count, and errors name the text.
#include "pipeline/embed_texts.h"

#include <cmath>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/attention/mixed_texts_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

ModelDirectory LoadDir(const std::string& name) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/" + name);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return std::move(dir).value();
}

TEST(EmbedTextsTest, AutoPoolingMatchesSentenceTransformers) {
  ModelDirectory dir = LoadDir("hf_roberta_f32");
  absl::StatusOr<PoolingChoice> choice = ChoosePooling(dir, "auto", false);
  ASSERT_TRUE(choice.ok()) << choice.status();
  EXPECT_EQ(choice->pooling, Pooling::kMean);
  EXPECT_TRUE(choice->normalize);  // the directory has a Normalize module
  nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_roberta_reference.json"));
  std::vector<std::string> owned = reference["texts"].get<std::vector<std::string>>();
  std::vector<std::string_view> texts(owned.begin(), owned.end());
  absl::StatusOr<std::vector<TextVectors>> out =
      EmbedTexts(dir, texts, {.pooling = choice->pooling, .normalize = choice->normalize});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    const Matrix& v = (*out)[i].vectors;  // [1, D]
    ASSERT_EQ(v.rows(), 1);
    std::vector<float> expected = reference["f32"]["pooled"][i].get<std::vector<float>>();
    ASSERT_EQ(static_cast<size_t>(v.cols()), expected.size());
    for (size_t j = 0; j < expected.size(); ++j) EXPECT_NEAR(v.at(0, j), expected[j], 1e-5) << texts[i] << " " << j;
  }
}

TEST(EmbedTextsTest, ExplicitPoolingOverridesAuto) {
  ModelDirectory dir = LoadDir("hf_roberta_f32");
  absl::StatusOr<PoolingChoice> choice = ChoosePooling(dir, "cls", false);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->pooling, Pooling::kCls);
  EXPECT_FALSE(choice->normalize);
  ModelDirectory gpt2 = LoadDir("hf_gpt2_f32");
  choice = ChoosePooling(gpt2, "auto", true);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->pooling, Pooling::kNone);  // no modules.json
  EXPECT_TRUE(choice->normalize);
  EXPECT_FALSE(ChoosePooling(gpt2, "median", false).ok());
}

// Batched (texts of any lengths share a forward pass) equals one text at a time through Model::Forward,
// within ForwardBatch's documented 1e-5; any thread count gives the same bits.
TEST(EmbedTextsTest, BatchedEqualsOneByOneAndThreadsDoNotMatter) {
  ModelDirectory dir = LoadDir("hf_gpt2_f32");
  std::vector<std::string> owned;
  for (int i = 0; i < 40; ++i) owned.push_back(i % 3 == 0 ? "the cat sat" : i % 3 == 1 ? "a dog ran far away" : "x");
  std::vector<std::string_view> texts(owned.begin(), owned.end());
  EmbedTextsOptions options{.pooling = Pooling::kMean, .normalize = true, .threads = 1, .batch_sequences = 4};
  absl::StatusOr<std::vector<TextVectors>> one = EmbedTexts(dir, texts, options);
  ASSERT_TRUE(one.ok()) << one.status();
  options.threads = 2;
  absl::StatusOr<std::vector<TextVectors>> two = EmbedTexts(dir, texts, options);
  ASSERT_TRUE(two.ok()) << two.status();
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ((*one)[i].vectors.storage(), (*two)[i].vectors.storage()) << i;
    absl::StatusOr<EmbeddedText> alone = dir.Embed(texts[i], {});
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ((*one)[i].ids, alone->ids);
    absl::StatusOr<std::vector<float>> pooled = PoolVectors(alone->hidden.view(), Pooling::kMean);
    ASSERT_TRUE(pooled.ok());
    NormalizeL2(*pooled);
    double norm = 0;
    for (size_t j = 0; j < pooled->size(); ++j) {
      EXPECT_NEAR((*one)[i].vectors.at(0, j), (*pooled)[j], 1e-5) << i;
      norm += double((*one)[i].vectors.at(0, j)) * (*one)[i].vectors.at(0, j);
    }
    EXPECT_NEAR(norm, 1.0, 1e-5);
  }
}

TEST(EmbedTextsTest, ErrorsNameTheText) {
  ModelDirectory dir = LoadDir("hf_gpt2_f32");
  std::string long_text;
  for (int64_t i = 0; i < dir.model().config().max_len + 5; ++i) long_text += " a";
  std::vector<std::string_view> texts = {"fine", long_text};
  absl::StatusOr<std::vector<TextVectors>> out = EmbedTexts(dir, texts, {.item_name = "text"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("text 2: "));
  // A bad id in a batch of texts of different lengths fails that text alone, named, and no other.
  const std::vector<std::vector<uint32_t>> ids = {{5, 6, 7, 8}, {5, 6}, {5, 1000000, 7}, {9}};
  absl::StatusOr<std::vector<TextVectors>> batch = EmbedIdSequences(dir, ids, {.item_name = "input"});
  ASSERT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(batch.status().message()), HasSubstr("input 3: "));
  // An empty text has no tokens to pool.
  texts = {""};
  out = EmbedTexts(dir, texts, {.pooling = Pooling::kMean});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("line 1: "));
}


// A sequence's vectors do not depend on the other sequences of its batch (TiledLinearInto pads small sgemm
// calls, tiled_linear.cc), so a server may batch requests together (server/batcher.h).
TEST(EmbedIdSequencesTest, ASequenceGetsTheSameBitsInAnyBatch) {
  ModelDirectory dir = LoadDir("hf_roberta_f32");
  const std::vector<std::string> texts = testing::MixedLengthTexts();
  std::vector<std::vector<uint32_t>> ids;
  for (const auto& t : texts) ids.push_back(*dir.Tokenize(t));
  const EmbedTextsOptions options{.pooling = Pooling::kMean, .normalize = true};
  absl::StatusOr<std::vector<TextVectors>> together = EmbedIdSequences(dir, ids, options);
  ASSERT_TRUE(together.ok()) << together.status();
  for (size_t i = 0; i < ids.size(); ++i) {
    absl::StatusOr<std::vector<TextVectors>> alone = EmbedIdSequences(dir, {ids[i]}, options);
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ((*alone)[0].vectors.storage(), (*together)[i].vectors.storage()) << "text " << i << ": " << texts[i];
  }
}

}  // namespace
}  // namespace tokvec
