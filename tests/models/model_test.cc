// Parity with PyTorch: tiny random GPT-2, RoBERTa, GPT-Neo and BERT checkpoints in Hugging Face's layout (F32, F16, BF16 copies)
// and the hidden states a torch implementation computes on them, all from scripts/gen_hf_checkpoints.py.
#include "models/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/attention/hf_reference_testutil.h"

namespace tokvec {
namespace {

const std::string& kTestdata = testing::kHfTestdata;
nlohmann::json LoadReference(const std::string& arch) { return testing::LoadHfReference(arch); }

struct ParityCase {
  std::string arch;   // gpt2 | roberta
  std::string dtype;  // f32 | f16 | bf16 (bert: also sharded, F32 in two files)
};

class ModelParityTest : public ::testing::TestWithParam<ParityCase> {};

TEST_P(ModelParityTest, HiddenStatesAndAttentionMatchTorch) {
  const ParityCase& c = GetParam();
  nlohmann::json reference = LoadReference(c.arch);
  ASSERT_FALSE(reference.is_null());
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_" + c.arch + "_" + c.dtype);
  ASSERT_TRUE(model.ok()) << model.status();
  const nlohmann::json& expected = reference[c.dtype];
  double max_diff = 0.0, max_weight_diff = 0.0;
  for (size_t i = 0; i < reference["texts"].size(); ++i) {
    std::vector<uint32_t> ids = reference["ids"][i].get<std::vector<uint32_t>>();
    ForwardOptions options;
    if (i == 0) {
      for (int64_t l = 0; l < (*model)->config().n_layers; ++l) options.keep_weights_of.push_back(l);
    }
    absl::StatusOr<ModelOutput> out = (*model)->Forward(ids, options);
    ASSERT_TRUE(out.ok()) << out.status();
    const nlohmann::json& hidden = expected["hidden"][i];
    ASSERT_EQ(out->hidden.rows(), static_cast<int64_t>(hidden.size()));
    for (int64_t t = 0; t < out->hidden.rows(); ++t) {
      ASSERT_EQ(out->hidden.cols(), static_cast<int64_t>(hidden[t].size()));
      for (int64_t j = 0; j < out->hidden.cols(); ++j) {
        const double diff = std::abs(out->hidden.at(t, j) - hidden[t][j].get<double>());
        ASSERT_LE(diff, 1e-4) << c.arch << " " << c.dtype << " text " << i << " token " << t << " dim " << j
                              << ": tokvec " << out->hidden.at(t, j) << " torch " << hidden[t][j];
        max_diff = std::max(max_diff, diff);
      }
    }
    if (i == 0) {
      const nlohmann::json& attentions = expected["attentions"];
      for (int64_t l = 0; l < (*model)->config().n_layers; ++l) {
        const std::vector<Matrix>& heads = out->attention_weights.at(l);
        ASSERT_EQ(heads.size(), attentions[l].size());
        for (size_t h = 0; h < heads.size(); ++h) {
          for (int64_t q = 0; q < heads[h].rows(); ++q) {
            for (int64_t k = 0; k < heads[h].cols(); ++k) {
              const double diff = std::abs(heads[h].at(q, k) - attentions[l][h][q][k].get<double>());
              ASSERT_LE(diff, 1e-5) << "layer " << l << " head " << h << " query " << q << " key " << k;
              max_weight_diff = std::max(max_weight_diff, diff);
            }
          }
        }
      }
    }
  }
  std::printf("[ measured ] %s %s: max |tokvec - torch| hidden %.3g, attention weights %.3g\n", c.arch.c_str(),
              c.dtype.c_str(), max_diff, max_weight_diff);
}

INSTANTIATE_TEST_SUITE_P(HuggingFace, ModelParityTest,
                         ::testing::Values(ParityCase{"gpt2", "f32"}, ParityCase{"gpt2", "f16"},
                                           ParityCase{"gpt2", "bf16"}, ParityCase{"roberta", "f32"},
                                           ParityCase{"roberta", "f16"}, ParityCase{"roberta", "bf16"},
                                           ParityCase{"gpt_neo", "f32"}, ParityCase{"gpt_neo", "bf16"},
                                           ParityCase{"bert", "f32"}, ParityCase{"bert", "f16"},
                                           ParityCase{"bert", "bf16"}, ParityCase{"bert", "sharded"}),
                         [](const auto& info) { return info.param.arch + "_" + info.param.dtype; });

// GPT-Neo's batched path (local layers through the sparse window kernel, unscaled scores) against the reference.
TEST(ModelTest, GptNeoForwardBatchMatchesTorch) {
  nlohmann::json reference = LoadReference("gpt_neo");
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_gpt_neo_f32");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE((*model)->causal());
  ASSERT_EQ((*model)->config().attention.size(), 2u);
  EXPECT_EQ(AttentionKindName((*model)->config().attention[1]), "window:4");
  double max_diff = 0.0;
  for (size_t i = 0; i < reference["texts"].size(); ++i) {
    std::vector<uint32_t> ids = reference["ids"][i].get<std::vector<uint32_t>>();
    absl::StatusOr<std::vector<Matrix>> out = (*model)->ForwardBatch({ids, ids}, 2);
    ASSERT_TRUE(out.ok()) << out.status();
    const nlohmann::json& hidden = reference["f32"]["hidden"][i];
    for (const Matrix& m : *out) {
      for (int64_t t = 0; t < m.rows(); ++t) {
        for (int64_t j = 0; j < m.cols(); ++j) {
          max_diff = std::max(max_diff, std::abs(m.at(t, j) - hidden[t][j].get<double>()));
        }
      }
    }
  }
  std::printf("[ measured ] gpt_neo batched: max |tokvec - torch| hidden %.3g\n", max_diff);
  EXPECT_LE(max_diff, 1e-4);
}

TEST(ModelTest, ThreadCountDoesNotChangeResults) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_gpt2_f32");
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<uint32_t> ids = {280, 261, 266, 262, 285, 261, 3, 7, 9};
  absl::StatusOr<ModelOutput> one = (*model)->Forward(ids, {.threads = 1});
  absl::StatusOr<ModelOutput> two = (*model)->Forward(ids, {.threads = 2});
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->hidden.storage(), two->hidden.storage());
}

TEST(ModelTest, ForwardBatchEqualsForwardOnEachSequence) {
  for (const std::string dir : {"hf_gpt2_f32", "hf_roberta_f32"}) {
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/" + dir);
    ASSERT_TRUE(model.ok()) << model.status();
    std::vector<std::vector<uint32_t>> batch = {{0, 280, 261, 266, 2}, {0, 5, 6, 7, 2}, {0, 9, 9, 9, 2}};
    for (int threads : {1, 2}) {
      absl::StatusOr<std::vector<Matrix>> hidden = (*model)->ForwardBatch(batch, threads);
      ASSERT_TRUE(hidden.ok()) << hidden.status();
      ASSERT_EQ(hidden->size(), batch.size());
      double max_diff = 0;
      for (size_t b = 0; b < batch.size(); ++b) {
        absl::StatusOr<ModelOutput> one = (*model)->Forward(batch[b]);
        ASSERT_TRUE(one.ok());
        ASSERT_EQ((*hidden)[b].rows(), one->hidden.rows());
        for (int64_t i = 0; i < one->hidden.size(); ++i) {
          max_diff = std::max(max_diff, static_cast<double>(std::abs((*hidden)[b].data()[i] - one->hidden.data()[i])));
        }
      }
      EXPECT_LE(max_diff, 1e-5) << dir;
      std::printf("[ measured ] %s ForwardBatch vs Forward (threads %d): max diff %.3g\n", dir.c_str(), threads,
                  max_diff);
    }
  }
}

// Sequences of different lengths in one batch (the encoder, GPT-2 and GPT-Neo stacks take them: the GEMMs over all
// their rows, attention per sequence): each equals that sequence batched alone bit for bit, and Forward within
// 1e-5, for 1 and 2 threads; an empty sequence gives [0, D].
TEST(ModelTest, RaggedForwardBatchEqualsEachSequenceAlone) {
  for (const std::string dir : {"hf_gpt2_f32", "hf_roberta_f32", "hf_gpt_neo_f32"}) {
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/" + dir);
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE((*model)->RaggedBatches()) << dir;
    const std::vector<std::vector<uint32_t>> batch = {
        {0, 280, 261, 266, 2, 9, 9, 7}, {0, 5, 2}, {}, {0, 9, 9, 9, 2}, {3}, {0, 7, 8, 9, 10, 11, 12, 13, 14, 15, 2}};
    ForwardBatchWorkspace workspace;
    for (int threads : {1, 2}) {
      absl::StatusOr<std::vector<Matrix>> hidden = (*model)->ForwardBatch(batch, threads, &workspace);
      ASSERT_TRUE(hidden.ok()) << hidden.status();
      ASSERT_EQ(hidden->size(), batch.size());
      double max_diff = 0;
      for (size_t b = 0; b < batch.size(); ++b) {
        ASSERT_EQ((*hidden)[b].rows(), static_cast<int64_t>(batch[b].size())) << dir << " sequence " << b;
        absl::StatusOr<std::vector<Matrix>> alone = (*model)->ForwardBatch({batch[b]}, 1);
        ASSERT_TRUE(alone.ok()) << alone.status();
        EXPECT_EQ((*hidden)[b].storage(), (*alone)[0].storage()) << dir << " sequence " << b << ", " << threads
                                                                 << " threads: its batch mates changed it";
        absl::StatusOr<ModelOutput> one = (*model)->Forward(batch[b]);
        ASSERT_TRUE(one.ok()) << one.status();
        ASSERT_EQ(one->hidden.size(), (*hidden)[b].size());
        for (int64_t i = 0; i < one->hidden.size(); ++i) {
          max_diff = std::max(max_diff, static_cast<double>(std::abs((*hidden)[b].data()[i] - one->hidden.data()[i])));
        }
      }
      EXPECT_LE(max_diff, 1e-5) << dir;
      std::printf("[ measured ] %s ragged ForwardBatch vs Forward (threads %d): max diff %.3g\n", dir.c_str(), threads,
                  max_diff);
    }
    // Errors name the sequence's length: an id past the vocabulary, a sequence over max_len.
    std::vector<std::vector<uint32_t>> bad = {{1, 2, 3}, {1, 1000000}};
    EXPECT_EQ((*model)->ForwardBatch(bad, 1).status().code(), absl::StatusCode::kInvalidArgument);
    bad = {{1, 2}, std::vector<uint32_t>(static_cast<size_t>((*model)->config().max_len) + 1, 1)};
    EXPECT_EQ((*model)->ForwardBatch(bad, 1).status().code(), absl::StatusCode::kOutOfRange);
  }
}

// The model keeps given-back workspaces (up to kKeptWorkspaces) and hands them out again; a batch run in a
// reused workspace (left holding a longer batch) gives the same bits as in a fresh one.
TEST(ModelTest, KeepsForwardBatchWorkspaces) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_gpt2_f32");
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<std::unique_ptr<ForwardBatchWorkspace>> taken;
  for (size_t i = 0; i < Model::kKeptWorkspaces + 2; ++i) taken.push_back((*model)->TakeWorkspace());
  std::vector<const ForwardBatchWorkspace*> given;
  for (auto& workspace : taken) {
    given.push_back(workspace.get());
    (*model)->GiveBackWorkspace(std::move(workspace));
  }
  std::vector<std::unique_ptr<ForwardBatchWorkspace>> again;
  for (size_t i = 0; i < Model::kKeptWorkspaces + 1; ++i) again.push_back((*model)->TakeWorkspace());
  for (size_t i = 0; i < Model::kKeptWorkspaces; ++i) {
    EXPECT_NE(std::find(given.begin(), given.end(), again[i].get()), given.end()) << "workspace " << i;
  }
  const std::vector<std::vector<uint32_t>> longer = {{0, 280, 261, 266, 2, 9, 9, 7, 5, 6, 7}, {3, 4, 5}};
  const std::vector<std::vector<uint32_t>> shorter = {{0, 5, 2}, {9}};
  ASSERT_TRUE((*model)->ForwardBatch(longer, 2, again[0].get()).ok());
  absl::StatusOr<std::vector<Matrix>> reused = (*model)->ForwardBatch(shorter, 2, again[0].get());
  absl::StatusOr<std::vector<Matrix>> fresh = (*model)->ForwardBatch(shorter, 2);
  ASSERT_TRUE(reused.ok() && fresh.ok());
  for (size_t b = 0; b < shorter.size(); ++b) EXPECT_EQ((*reused)[b].storage(), (*fresh)[b].storage());
}

TEST(ModelTest, CausalPrefixIsUnchangedByLaterTokens) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_gpt2_f32");
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<ModelOutput> a = (*model)->Forward(std::vector<uint32_t>{5, 6, 7, 8});
  absl::StatusOr<ModelOutput> b = (*model)->Forward(std::vector<uint32_t>{5, 6, 7, 90});
  ASSERT_TRUE(a.ok() && b.ok());
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t j = 0; j < a->hidden.cols(); ++j) EXPECT_EQ(a->hidden.at(t, j), b->hidden.at(t, j));
  }
  EXPECT_NE(a->hidden.at(3, 0), b->hidden.at(3, 0));
}

TEST(ModelTest, TooLongInputAndBadIdsAreErrors) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_gpt2_f32");
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<uint32_t> ids((*model)->config().max_len + 1, 5);
  absl::StatusOr<ModelOutput> out = (*model)->Forward(ids);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(std::string(out.status().message()).find("49 tokens"), std::string::npos) << out.status();
  out = (*model)->Forward(std::vector<uint32_t>{1, 100000});
  EXPECT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("100000"), std::string::npos) << out.status();
  out = (*model)->Forward(std::vector<uint32_t>{1, 2}, {.keep_weights_of = {7}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace tokvec
