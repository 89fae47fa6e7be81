// Parity with PyTorch for the RMSNorm / RoPE / GQA / SwiGLU decoders: tiny random LLaMA (GQA, untied lm_head),
// Qwen2 (q/k/v biases, tied) and Qwen3 (q_norm / k_norm, head_dim 16 != hidden / heads 8; Qwen3-Embedding's
// sentence-transformers layout) checkpoints in F32 and BF16, and the float64 torch forward of
// scripts/gen_decoder_checkpoints.py on the same (rounded) weights.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "models/decoder_config.h"
#include "models/model.h"
#include "nlohmann/json.hpp"
#include "pipeline/model_directory.h"
#include "pipeline/pooling.h"
#include "tests/attention/hf_reference_testutil.h"

namespace tokvec {
namespace {

const std::string& kTestdata = testing::kHfTestdata;
nlohmann::json LoadReference(const std::string& arch) { return testing::LoadHfReference(arch); }

double MaxDiff(const Matrix& m, const nlohmann::json& expected) {
  EXPECT_EQ(m.rows(), static_cast<int64_t>(expected.size()));
  double max_diff = 0.0;
  for (int64_t t = 0; t < m.rows() && t < static_cast<int64_t>(expected.size()); ++t) {
    EXPECT_EQ(m.cols(), static_cast<int64_t>(expected[t].size()));
    for (int64_t j = 0; j < m.cols() && j < static_cast<int64_t>(expected[t].size()); ++j) {
      max_diff = std::max(max_diff, std::abs(m.at(t, j) - expected[t][j].get<double>()));
    }
  }
  return max_diff;
}

struct DecoderCase {
  std::string arch;   // llama | qwen2 | qwen3
  std::string dtype;  // f32 | bf16 | f16 | sharded (F32 in two safetensors shards with an index)
};

class DecoderParityTest : public ::testing::TestWithParam<DecoderCase> {};

TEST_P(DecoderParityTest, HiddenStatesAttentionAndBatchMatchTorch) {
  const DecoderCase& c = GetParam();
  nlohmann::json reference = LoadReference(c.arch);
  ASSERT_FALSE(reference.is_null());
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_" + c.arch + "_" + c.dtype);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE((*model)->causal());
  EXPECT_EQ(ArchitectureName((*model)->config().arch), c.arch);
  const nlohmann::json& expected = reference[c.dtype];
  double hidden_diff = 0.0, weight_diff = 0.0, batch_diff = 0.0;
  for (size_t i = 0; i < reference["texts"].size(); ++i) {
    const std::vector<uint32_t> ids = reference["ids"][i].get<std::vector<uint32_t>>();
    ForwardOptions options{.threads = 2};
    if (i == 0) options.keep_weights_of = {0, 1};
    absl::StatusOr<ModelOutput> out = (*model)->Forward(ids, options);
    ASSERT_TRUE(out.ok()) << out.status();
    hidden_diff = std::max(hidden_diff, MaxDiff(out->hidden, expected["hidden"][i]));
    if (i == 0) {
      for (int64_t l = 0; l < 2; ++l) {
        const std::vector<Matrix>& heads = out->attention_weights.at(l);
        ASSERT_EQ(heads.size(), expected["attentions"][l].size());
        for (size_t h = 0; h < heads.size(); ++h) {
          weight_diff = std::max(weight_diff, MaxDiff(heads[h], expected["attentions"][l][h]));
        }
      }
    }
    // The batched path (one set of GEMMs over three copies) gives each copy the reference's states too.
    absl::StatusOr<std::vector<Matrix>> batch = (*model)->ForwardBatch({ids, ids, ids}, 2);
    ASSERT_TRUE(batch.ok()) << batch.status();
    for (const Matrix& m : *batch) batch_diff = std::max(batch_diff, MaxDiff(m, expected["hidden"][i]));
  }
  std::printf("[ measured ] %s %s: max |tokvec - torch| hidden %.3g, attention weights %.3g, batched %.3g\n",
              c.arch.c_str(), c.dtype.c_str(), hidden_diff, weight_diff, batch_diff);
  EXPECT_LE(hidden_diff, 1e-4);
  EXPECT_LE(weight_diff, 1e-5);
  EXPECT_LE(batch_diff, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(HuggingFace, DecoderParityTest,
                         ::testing::Values(DecoderCase{"llama", "f32"}, DecoderCase{"llama", "bf16"},
                                           DecoderCase{"llama", "f16"}, DecoderCase{"llama", "sharded"},
                                           DecoderCase{"qwen2", "f32"}, DecoderCase{"qwen2", "bf16"},
                                           DecoderCase{"qwen2", "f16"}, DecoderCase{"qwen3", "f32"},
                                           DecoderCase{"qwen3", "bf16"}, DecoderCase{"qwen3", "f16"},
                                           DecoderCase{"qwen3", "sharded"}),
                         [](const auto& info) { return info.param.arch + "_" + info.param.dtype; });

TEST(DecoderModelTest, ThreadCountAndBatchDoNotChangeBits) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/hf_qwen3_f32");
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<uint32_t> ids = {280, 261, 266, 262, 285, 261, 3, 7, 9};
  absl::StatusOr<ModelOutput> one = (*model)->Forward(ids, {.threads = 1});
  absl::StatusOr<ModelOutput> two = (*model)->Forward(ids, {.threads = 2});
  absl::StatusOr<std::vector<Matrix>> batch = (*model)->ForwardBatch({{5, 6, 7, 8, 9, 10, 11, 12, 13}, ids}, 2);
  ASSERT_TRUE(one.ok() && two.ok() && batch.ok());
  EXPECT_EQ(one->hidden.storage(), two->hidden.storage());
  EXPECT_EQ(one->hidden.storage(), (*batch)[1].storage());
  // The decoder stacks batch equal lengths only: a ragged batch is an error naming both lengths.
  EXPECT_FALSE((*model)->RaggedBatches());
  absl::StatusOr<std::vector<Matrix>> ragged = (*model)->ForwardBatch({{5, 6, 7}, ids}, 1);
  ASSERT_EQ(ragged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(ragged.status().message()).find("sequence 1 has 9 tokens, sequence 0 has 3"),
            std::string::npos)
      << ragged.status();
}

// Qwen3-Embedding's directory shape: tokenizer.json, last-token pooling + Normalize from the sentence-transformers
// modules; Embed + the pooling give the reference's pooled vectors.
TEST(DecoderModelTest, Qwen3EmbeddingDirectoryGivesReferencePooledVectors) {
  nlohmann::json reference = LoadReference("qwen3");
  for (const std::string dtype : {"f32", "bf16", "f16", "sharded"}) {
    absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_qwen3_" + dtype);
    ASSERT_TRUE(dir.ok()) << dir.status();
    ASSERT_TRUE(dir->sentence_pooling().has_value());
    EXPECT_EQ(dir->sentence_pooling()->pooling, Pooling::kLast);
    EXPECT_TRUE(dir->sentence_pooling()->normalize);
    double max_diff = 0.0;
    for (size_t i = 0; i < reference["texts"].size(); ++i) {
      absl::StatusOr<EmbeddedText> text = dir->Embed(reference["texts"][i].get<std::string>(), {.threads = 2});
      ASSERT_TRUE(text.ok()) << text.status();
      EXPECT_EQ(text->ids, reference["ids"][i].get<std::vector<uint32_t>>());
      absl::StatusOr<std::vector<float>> pooled = PoolVectors(text->hidden.view(), Pooling::kLast);
      ASSERT_TRUE(pooled.ok()) << pooled.status();
      NormalizeL2(*pooled);
      const nlohmann::json& expected = reference[dtype]["pooled"][i];
      ASSERT_EQ(pooled->size(), expected.size());
      for (size_t j = 0; j < pooled->size(); ++j) {
        max_diff = std::max(max_diff, std::abs((*pooled)[j] - expected[j].get<double>()));
      }
    }
    std::printf("[ measured ] qwen3 %s last-token pooled + normalized: max |tokvec - torch| %.3g\n", dtype.c_str(),
                max_diff);
    EXPECT_LE(max_diff, 1e-4);
  }
}

TEST(DecoderConfigTest, ReadsQwen3EmbeddingKeys) {
  const std::string json = R"({"model_type": "qwen3", "hidden_size": 1024, "intermediate_size": 3072,
    "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "max_position_embeddings": 32768, "vocab_size": 151669, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
    "rope_scaling": null, "hidden_act": "silu", "tie_word_embeddings": true, "attention_bias": false,
    "use_sliding_window": false, "sliding_window": null, "torch_dtype": "float32"})";
  absl::StatusOr<ModelConfig> config = ParseModelConfig(json, "config.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->arch, Architecture::kQwen3);
  EXPECT_EQ(config->n_heads, 16);
  EXPECT_EQ(config->n_kv_heads, 8);
  EXPECT_EQ(config->head_dim(), 128);
  EXPECT_EQ(config->max_len, 32768);
  EXPECT_TRUE(config->qk_norm);
  EXPECT_FALSE(config->qkv_bias);
  ASSERT_TRUE(config->rotary.has_value());
  EXPECT_EQ(config->rotary->base, 1e6f);
}

TEST(DecoderConfigTest, RefusesWhatItCannotRun) {
  const std::string base = R"("hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
    "num_attention_heads": 4, "max_position_embeddings": 64, "vocab_size": 300, "rms_norm_eps": 1e-6)";
  struct Bad {
    std::string extra, message;
  };
  for (const Bad& bad : {Bad{R"("model_type": "llama", "num_key_value_heads": 3)", "does not divide"},
                         Bad{R"("model_type": "llama", "rope_scaling": {"rope_type": "llama3", "factor": 8.0})",
                             "rope_scaling"},
                         Bad{R"("model_type": "qwen2", "use_sliding_window": true)", "use_sliding_window"},
                         Bad{R"("model_type": "qwen3", "head_dim": 7)", "even head_dim"},
                         Bad{R"("model_type": "llama", "hidden_act": "gelu")", "silu"},
                         Bad{R"("model_type": "llama", "num_attention_heads": 5)", "does not divide hidden_size"}}) {
    std::string json = "{" + base + ", " + bad.extra + "}";
    // A later duplicate key wins in nlohmann::json, so the bad value replaces the base one.
    absl::StatusOr<ModelConfig> config = ParseModelConfig(json, "config.json");
    ASSERT_FALSE(config.ok()) << bad.extra;
    EXPECT_NE(std::string(config.status().message()).find(bad.message), std::string::npos)
        << config.status() << " should mention " << bad.message;
  }
}

// A config.json that disagrees with the weights (head_dim 8 over Qwen3 weights of head_dim 16) names the tensor,
// its shape and the config keys the expected shape follows from.
TEST(DecoderModelTest, ShapeMismatchNamesTensorAndKeys) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tokvec_decoder_shape_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  absl::StatusOr<std::string> config = ReadFile(kTestdata + "/hf_qwen3_f32/config.json");
  ASSERT_TRUE(config.ok());
  const std::string key = "\"head_dim\": 16";
  const size_t at = config->find(key);
  ASSERT_NE(at, std::string::npos);
  config->replace(at, key.size(), "\"head_dim\": 8");
  ASSERT_TRUE(WriteFileAtomically((dir / "config.json").string(), *config).ok());
  std::filesystem::copy_file(kTestdata + "/hf_qwen3_f32/model.safetensors", dir / "model.safetensors");
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(std::string(model.status().message()).find("tensor 'layers.0.self_attn.q_proj.weight' has shape [64, 32]; "
                                                       "expected [32, 32] = [num_attention_heads * head_dim, "
                                                       "hidden_size]"),
            std::string::npos)
      << model.status();
}

}  // namespace
}  // namespace tokvec
