// Model directories: tokenizer ids equal the reference encoder's, RoBERTa wraps <s> ... </s> (BERT [CLS] ... [SEP]
// looked up by name), BERT directories give the reference's hidden states and pooled vectors, and sliding windows
// follow the documented rule (each token's vector is the one its owning window computes on its own).
#include "pipeline/model_directory.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pipeline/sliding_window.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

TEST(ModelDirectoryTest, IdsMatchTheReferenceEncoder) {
  for (const std::string arch : {"gpt2", "roberta", "bert"}) {
    absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + arch + "_f32");
    ASSERT_TRUE(dir.ok()) << dir.status();
    nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_" + arch + "_reference.json"));
    for (size_t i = 0; i < reference["texts"].size(); ++i) {
      absl::StatusOr<std::vector<uint32_t>> ids = dir->Tokenize(reference["texts"][i].get<std::string>());
      ASSERT_TRUE(ids.ok()) << ids.status();
      EXPECT_EQ(*ids, reference["ids"][i].get<std::vector<uint32_t>>()) << arch << " " << reference["texts"][i];
    }
  }
}

class WindowTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WindowTest, EachTokenComesFromItsOwningWindow) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + GetParam() + "_f32");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const bool roberta = GetParam() != "gpt2";  // roberta <s> ... </s>, bert [CLS] ... [SEP]
  const int64_t max_len = dir->model().config().max_len;
  std::string text;
  while (true) {
    absl::StatusOr<std::vector<uint32_t>> ids = dir->Tokenize(text);
    if (static_cast<int64_t>(ids->size()) > max_len + 20) break;
    text += "The quick brown fox jumps over the lazy dog. ";
  }
  // Without windows: an error that says how to ask for them.
  absl::StatusOr<EmbeddedText> plain = dir->Embed(text, {});
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(std::string(plain.status().message()), HasSubstr("--window"));

  const int64_t window = 16, stride = 6;
  absl::StatusOr<EmbeddedText> windowed = dir->Embed(text, {.window = window, .stride = stride});
  ASSERT_TRUE(windowed.ok()) << windowed.status();
  const std::vector<uint32_t>& ids = windowed->ids;
  const int64_t extra = roberta ? 2 : 0, first = roberta ? 1 : 0;
  const int64_t content = static_cast<int64_t>(ids.size()) - extra;
  absl::StatusOr<std::vector<Window>> plan = PlanWindows(content, window - extra, stride);
  ASSERT_TRUE(plan.ok());
  const std::vector<int> owner = AssignTokensToWindows(*plan, content, dir->model().causal());
  for (size_t w = 0; w < plan->size(); ++w) {
    std::vector<uint32_t> sub;
    if (roberta) sub.push_back(ids.front());
    sub.insert(sub.end(), ids.begin() + first + (*plan)[w].begin, ids.begin() + first + (*plan)[w].end);
    if (roberta) sub.push_back(ids.back());
    absl::StatusOr<ModelOutput> alone = dir->model().Forward(sub);
    ASSERT_TRUE(alone.ok());
    for (int64_t t = (*plan)[w].begin; t < (*plan)[w].end; ++t) {
      if (owner[t] != static_cast<int>(w)) continue;
      for (int64_t j = 0; j < alone->hidden.cols(); ++j) {
        ASSERT_EQ(windowed->hidden.at(first + t, j), alone->hidden.at(first + t - (*plan)[w].begin, j))
            << "token " << t << " window " << w;
      }
    }
  }
}

TEST_P(WindowTest, OneWindowCoveringEverythingEqualsNoWindow) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + GetParam() + "_f32");
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<EmbeddedText> plain = dir->Embed("Your cat is a lovely cat", {});
  absl::StatusOr<EmbeddedText> windowed =
      dir->Embed("Your cat is a lovely cat", {.window = dir->model().config().max_len, .stride = 3});
  ASSERT_TRUE(plain.ok() && windowed.ok());
  EXPECT_EQ(plain->hidden.storage(), windowed->hidden.storage());
}

INSTANTIATE_TEST_SUITE_P(Archs, WindowTest, ::testing::Values("gpt2", "roberta", "bert"));

// Embeds every text of a torch reference (scripts/gen_hf_checkpoints.py: hf_<arch>_reference.json) with the copy
// hf_<arch>_<copy> and checks ids, [CLS] ... [SEP], hidden states and the vectors its sentence-transformers modules
// ask for (none: mean, checked) within 1e-4; prints the largest differences.
// `first` / `last`: the tokens the directory wraps every text in.
void ExpectDirectoryMatchesTorch(const std::string& arch, const std::string& copy, const std::string& first = "[CLS]",
                                 const std::string& last = "[SEP]") {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + arch + "_" + copy);
  ASSERT_TRUE(dir.ok()) << dir.status();
  nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_" + arch + "_reference.json"));
  const nlohmann::json& expected = reference[copy];
  Pooling pooling = Pooling::kMean;
  bool normalize = false;
  if (dir->sentence_pooling()) {
    pooling = dir->sentence_pooling()->pooling;
    normalize = dir->sentence_pooling()->normalize;
  }
  EXPECT_EQ(PoolingName(pooling), expected["pooling"].get<std::string>());
  EXPECT_EQ(normalize, expected["normalize"].get<bool>());
  double max_hidden = 0.0, max_pooled = 0.0;
  for (size_t i = 0; i < reference["texts"].size(); ++i) {
    absl::StatusOr<EmbeddedText> text = dir->Embed(reference["texts"][i].get<std::string>(), {.threads = 2});
    ASSERT_TRUE(text.ok()) << text.status();
    EXPECT_EQ(text->ids, reference["ids"][i].get<std::vector<uint32_t>>()) << reference["texts"][i];
    EXPECT_EQ(text->tokens.front(), first);
    EXPECT_EQ(text->tokens.back(), last);
    ASSERT_EQ(text->hidden.rows(), static_cast<int64_t>(expected["hidden"][i].size()));
    for (int64_t t = 0; t < text->hidden.rows(); ++t) {
      for (int64_t j = 0; j < text->hidden.cols(); ++j) {
        max_hidden = std::max(max_hidden, std::abs(text->hidden.at(t, j) - expected["hidden"][i][t][j].get<double>()));
      }
    }
    absl::StatusOr<std::vector<float>> pooled = PoolVectors(text->hidden.view(), pooling);
    ASSERT_TRUE(pooled.ok()) << pooled.status();
    if (normalize) NormalizeL2(*pooled);
    ASSERT_EQ(pooled->size(), expected["pooled"][i].size());
    for (size_t j = 0; j < pooled->size(); ++j) {
      max_pooled = std::max(max_pooled, std::abs((*pooled)[j] - expected["pooled"][i][j].get<double>()));
    }
  }
  EXPECT_LE(max_hidden, 1e-4);
  EXPECT_LE(max_pooled, 1e-4);
  std::printf("[ measured ] %s %s: max |tokvec - torch| hidden %.3g, pooled (%s%s) %.3g\n", arch.c_str(),
              copy.c_str(), max_hidden, std::string(PoolingName(pooling)).c_str(), normalize ? " + Normalize" : "",
              max_pooled);
}

// BERT directories as sentence-transformers ships them (scripts/gen_hf_checkpoints.py, BERT_COPIES): tokenizer.json
// or only vocab.txt, one file or shards; [CLS] ... [SEP] found by name; hidden states and the pooled vectors the
// directory's modules ask for (bf16: none; mean checked) equal the torch reference.
class BertDirectoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BertDirectoryTest, IdsHiddenStatesAndPooledVectorsMatchTorch) {
  const std::string copy = GetParam();
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_bert_" + copy);
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(dir->sentence_pooling().has_value(), copy != "bf16");
  ExpectDirectoryMatchesTorch("bert", copy);
}

INSTANTIATE_TEST_SUITE_P(Copies, BertDirectoryTest, ::testing::Values("f32", "f16", "bf16", "sharded"));

// DistilBERT (tests/attention/testdata/hf_distilbert_*, scripts/gen_hf_checkpoints.py): DistilBertModel names, a
// DistilBertForMaskedLM checkpoint whose sinusoidal position table is left out (the model makes it), bf16.
class DistilBertDirectoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DistilBertDirectoryTest, IdsHiddenStatesAndPooledVectorsMatchTorch) {
  ExpectDirectoryMatchesTorch("distilbert", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Copies, DistilBertDirectoryTest, ::testing::Values("f32", "sinusoidal", "bf16"));

// MPNet (tests/attention/testdata/hf_mpnet_*, scripts/gen_hf_checkpoints.py write_mpnet): MPNetModel names with
// all-mpnet-base-v2's modules (f32), an MPNetForMaskedLM checkpoint (bf16); <s> ... </s> from RobertaProcessing.
// Text 4 has 59 tokens, so the relative position bias reaches the logarithmic buckets.
class MpnetDirectoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MpnetDirectoryTest, IdsHiddenStatesAndPooledVectorsMatchTorch) {
  ExpectDirectoryMatchesTorch("mpnet", GetParam(), "<s>", "</s>");
}

// Every layer's attention weights of text 0 (the bias's sign shows here first), and the batched forward (ragged:
// every text at once, the bias through the plain per-head kernel) equal to one text at a time.
TEST_P(MpnetDirectoryTest, AttentionWeightsAndBatchedForward) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_mpnet_" + GetParam());
  ASSERT_TRUE(dir.ok()) << dir.status();
  nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_mpnet_reference.json"));
  const auto ids = reference["ids"].get<std::vector<std::vector<uint32_t>>>();
  const nlohmann::json& attentions = reference[GetParam()]["attentions"];
  absl::StatusOr<ModelOutput> one = dir->model().Forward(ids[0], {.threads = 2, .keep_weights_of = {0, 1}});
  ASSERT_TRUE(one.ok()) << one.status();
  double max_weight = 0.0;
  for (int64_t layer = 0; layer < 2; ++layer) {
    for (size_t h = 0; h < attentions[layer].size(); ++h) {
      const Matrix& w = one->attention_weights.at(layer)[h];
      for (int64_t i = 0; i < w.rows(); ++i) {
        for (int64_t j = 0; j < w.cols(); ++j) {
          max_weight = std::max(max_weight, std::abs(w.at(i, j) - attentions[layer][h][i][j].get<double>()));
        }
      }
    }
  }
  EXPECT_LE(max_weight, 1e-5);
  absl::StatusOr<std::vector<Matrix>> batched = dir->model().ForwardBatch(ids, 2);
  ASSERT_TRUE(batched.ok()) << batched.status();
  double max_batched = 0.0;
  for (size_t b = 0; b < ids.size(); ++b) {
    absl::StatusOr<ModelOutput> single = dir->model().Forward(ids[b], {.threads = 1});
    ASSERT_TRUE(single.ok()) << single.status();
    ASSERT_EQ((*batched)[b].rows(), single->hidden.rows());
    for (int64_t i = 0; i < single->hidden.size(); ++i) {
      max_batched = std::max(max_batched, static_cast<double>(std::abs((*batched)[b].data()[i] -
                                                                       single->hidden.data()[i])));
    }
  }
  EXPECT_LE(max_batched, 1e-5);
  std::printf("[ measured ] mpnet %s: attention weights vs torch %.3g, batched vs single %.3g\n",
              GetParam().c_str(), max_weight, max_batched);
}

INSTANTIATE_TEST_SUITE_P(Copies, MpnetDirectoryTest, ::testing::Values("f32", "bf16"));
// ModernBERT (tests/attention/testdata/hf_modernbert_*, scripts/gen_hf_checkpoints.py write_modernbert): 4 layers,
// global layers 0 and 3 (RoPE base 160000), local layers 1 and 2 (window 8: |i - j| <= 4, RoPE base 10000), layer 0
// without attn_norm, GeGLU; bf16 under ModernBertForMaskedLM's "model." names. The last text (62 tokens) is many
// windows long.
class ModernBertDirectoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModernBertDirectoryTest, IdsHiddenStatesAndPooledVectorsMatchTorch) {
  ExpectDirectoryMatchesTorch("modernbert", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Copies, ModernBertDirectoryTest, ::testing::Values("f32", "bf16"));

// The batched (ragged) forward runs ModernBERT's per-layer windows and RoPE bases, the skipped first norm and GeGLU
// as the single-sequence forward does: texts of different lengths together, the long one among them.
TEST(ModelDirectoryTest, ModernBertBatchedEqualsSingle) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_modernbert_f32");
  ASSERT_TRUE(dir.ok()) << dir.status();
  nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_modernbert_reference.json"));
  std::vector<std::vector<uint32_t>> batch;
  for (const auto& ids : reference["ids"]) batch.push_back(ids.get<std::vector<uint32_t>>());
  ASSERT_GT(batch.back().size(), 32u);  // longer than four windows of 8
  ASSERT_TRUE(dir->model().RaggedBatches());
  for (int threads : {1, 2}) {
    absl::StatusOr<std::vector<Matrix>> batched = dir->model().ForwardBatch(batch, threads);
    ASSERT_TRUE(batched.ok()) << batched.status();
    ASSERT_EQ(batched->size(), batch.size());
    double max_diff = 0.0, max_torch = 0.0;
    for (size_t b = 0; b < batch.size(); ++b) {
      absl::StatusOr<ModelOutput> single = dir->model().Forward(batch[b], {.threads = threads});
      ASSERT_TRUE(single.ok()) << single.status();
      ASSERT_EQ((*batched)[b].rows(), single->hidden.rows());
      for (int64_t t = 0; t < single->hidden.rows(); ++t) {
        for (int64_t j = 0; j < single->hidden.cols(); ++j) {
          max_diff = std::max<double>(max_diff, std::abs((*batched)[b].at(t, j) - single->hidden.at(t, j)));
          max_torch = std::max(max_torch, std::abs((*batched)[b].at(t, j) -
                                                   reference["f32"]["hidden"][b][t][j].get<double>()));
        }
      }
    }
    EXPECT_LE(max_diff, 1e-5);
    EXPECT_LE(max_torch, 1e-4);
    std::printf("[ measured ] modernbert batched (%d threads): max |batched - single| %.3g, |batched - torch| %.3g\n",
                threads, max_diff, max_torch);
  }
}

TEST(ModelDirectoryTest, ModernBertWithoutAnMlpTensorNamesIt) {
  const std::string dir = ::testing::TempDir() + "/tokvec_modernbert_no_wi_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kTestdata + "/hf_modernbert_f32", dir, std::filesystem::copy_options::recursive);
  std::string weights = *ReadFile(dir + "/model.safetensors");
  const size_t at = weights.find("layers.0.mlp.Wi.weight");
  ASSERT_NE(at, std::string::npos);
  weights.replace(at, 8, "layers.0");  // same length: keep the header valid
  weights[at + 9] = 'X';               // "layers.0.Xlp.Wi.weight"
  ASSERT_TRUE(WriteFileAtomically(dir + "/model.safetensors", weights).ok());
  absl::StatusOr<ModelDirectory> loaded = ModelDirectory::Load(dir);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("'layers.0.mlp.Wi.weight'"));
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("2 * intermediate_size"));
  std::filesystem::remove_all(dir);
}

TEST(ModelDirectoryTest, BertWithoutClsIsAnError) {
  const std::string dir = ::testing::TempDir() + "/tokvec_bert_no_cls_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kTestdata + "/hf_bert_bf16", dir, std::filesystem::copy_options::recursive);
  std::string vocab = *ReadFile(dir + "/vocab.txt");
  vocab.replace(vocab.find("[CLS]"), 5, "[XLS]");
  ASSERT_TRUE(WriteFileAtomically(dir + "/vocab.txt", vocab).ok());
  absl::StatusOr<ModelDirectory> loaded = ModelDirectory::Load(dir);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("has no token '[CLS]'"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tokvec
