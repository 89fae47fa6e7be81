// `tokvec init`: a model directory another `tokvec embed` can read; seeded, atomic, validated.
#include <filesystem>
#include <string>

#include "embeddings/safetensors.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/model_config.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ModelTestdata;
using testing::RunShell;
using testing::ScratchDir;
using testing::Tokvec;

std::string InitCommand(const std::string& out, const std::string& arch, int seed, int d_model = 32) {
  return fmt::format("{} init --tokenizer {}/hf_gpt2_f32/vocab.json --arch {} --d-model {} --heads 4 --layers 2 "
                     "--max-len 40 --seed {} -o {}",
                     Tokvec(), ModelTestdata(), arch, d_model, seed, out);
}

TEST(InitCommandTest, MakesADirectoryThatEmbedReads) {
  ScratchDir scratch;
  testing::ShellResult r = RunShell(InitCommand(scratch / "m", "gpt2", 7));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"vocab.json", "merges.txt", "config.json", "model.safetensors"}) {
    EXPECT_TRUE(std::filesystem::exists(scratch / ("m/" + std::string(name)))) << name;
  }
  int leftovers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path())) leftovers += entry.path() != scratch / "m";
  EXPECT_EQ(leftovers, 0) << "the temporary directory must be gone";
  absl::StatusOr<ModelConfig> config = LoadModelConfig(scratch / "m/config.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->vocab_size, 297);  // the tokenizer's size
  EXPECT_EQ(config->d_ff, 128);
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> weights = SafetensorsFile::Open(scratch / "m/model.safetensors");
  ASSERT_TRUE(weights.ok()) << weights.status();
  // GPT-2's scheme: LayerNorm ones and zeros, weights with a standard deviation near 0.02.
  absl::StatusOr<FloatTensor> ln = (*weights)->ReadFloat32("h.0.ln_1.weight");
  ASSERT_TRUE(ln.ok());
  EXPECT_EQ(ln->data[0], 1.0f);
  absl::StatusOr<FloatTensor> wte = (*weights)->ReadFloat32("wte.weight");
  ASSERT_TRUE(wte.ok());
  double sum_sq = 0;
  for (int64_t i = 0; i < wte->num_elements(); ++i) sum_sq += wte->data[i] * wte->data[i];
  EXPECT_NEAR(std::sqrt(sum_sq / wte->num_elements()), 0.02, 0.002);

  testing::WriteWhole(scratch / "in.txt", "Your cat is a lovely cat\n");
  r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch / "m", scratch / "in.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["ids"], nlohmann::json::parse("[280, 261, 266, 262, 285, 261]"));
  EXPECT_EQ(out["vectors"].size(), 6u);
  EXPECT_EQ(out["vectors"][0].size(), 32u);
}

TEST(InitCommandTest, SameSeedSameBytesOtherSeedOtherWeights) {
  ScratchDir scratch;
  ASSERT_EQ(RunShell(InitCommand(scratch / "a", "encoder", 3)).exit_code, 0);
  ASSERT_EQ(RunShell(InitCommand(scratch / "b", "encoder", 3)).exit_code, 0);
  ASSERT_EQ(RunShell(InitCommand(scratch / "c", "encoder", 4)).exit_code, 0);
  EXPECT_EQ(testing::ReadWhole(scratch / "a/model.safetensors"), testing::ReadWhole(scratch / "b/model.safetensors"));
  EXPECT_NE(testing::ReadWhole(scratch / "a/model.safetensors"), testing::ReadWhole(scratch / "c/model.safetensors"));
  testing::WriteWhole(scratch / "in.txt", "Your cat is a lovely cat");
  testing::ShellResult r = RunShell(fmt::format("{} embed -m {} --pooling mean {}", Tokvec(), scratch / "a", scratch / "in.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["vectors"].size(), 1u);
}

// Models around tokenizers that tokvec trains itself: classic word-level BPE (</w>) and byte-level.
TEST(InitCommandTest, WorksWithTrainedWordAndByteTokenizers) {
  ScratchDir scratch;
  std::string corpus;
  for (int i = 0; i < 50; ++i) corpus += "your cat is a lovely cat and the lazy dog sleeps in the garden\n";
  testing::WriteWhole(scratch / "corpus.txt", corpus);
  testing::WriteWhole(scratch / "in.txt", "your cat is a lovely cat\n");
  for (const std::string type : {"word", "byte"}) {
    testing::ShellResult r = RunShell(fmt::format("{} train --type {} --merges 30 -o {} {}", Tokvec(), type,
                                                  scratch / (type + ".tokvec"), scratch / "corpus.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const std::string arch : {"gpt2", "encoder"}) {
      const std::string model = scratch / (type + "_" + arch);
      r = RunShell(fmt::format("{} init --tokenizer {} --arch {} --d-model 16 --heads 2 --layers 1 --max-len 32 "
                               "--seed 5 -o {}",
                               Tokvec(), scratch / (type + ".tokvec"), arch, model));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_TRUE(std::filesystem::exists(model + "/tokenizer.tokvec"));
      r = RunShell(fmt::format("{} attend -m {} --format json {}", Tokvec(), model, scratch / "in.txt"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      nlohmann::json out = nlohmann::json::parse(r.out);
      ASSERT_FALSE(out["tokens"].empty());
      if (type == "word") EXPECT_THAT(out["tokens"].back().get<std::string>(), HasSubstr("</w>"));
      for (size_t q = 0; q < out["weights"].size(); ++q) {
        double sum = 0;
        for (size_t k = 0; k < out["weights"][q].size(); ++k) {
          const double w = out["weights"][q][k].get<double>();
          if (arch == "gpt2" && k > q) EXPECT_EQ(w, 0.0);
          if (arch == "encoder") EXPECT_GT(w, 0.0) << "bidirectional: every key is attended to";
          sum += w;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << type << " " << arch;
      }
      r = RunShell(fmt::format("{} embed -m {} --pooling max {}", Tokvec(), model, scratch / "in.txt"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["vectors"][0].size(), 16u);
    }
  }
}

TEST(InitCommandTest, HugeSizesAreRefusedNotAllocated) {
  ScratchDir scratch;
  const std::string tokenizer = ModelTestdata() + "/hf_gpt2_f32/vocab.json";
  testing::ShellResult r = RunShell(fmt::format("{} init --tokenizer {} --arch gpt2 --d-model 8 --heads 2 --layers 1 "
                                                "--max-len 1000000000000 --seed 1 -o {}",
                                                Tokvec(), tokenizer, scratch / "big"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("parameters"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "big"));
  // The encoder's sinusoidal positions are not weights: a huge --max-len costs nothing at init or load.
  r = RunShell(fmt::format("{} init --tokenizer {} --arch encoder --d-model 8 --heads 2 --layers 1 "
                           "--max-len 1000000000000 --seed 1 -o {}",
                           Tokvec(), tokenizer, scratch / "enc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  testing::WriteWhole(scratch / "in.txt", "Your cat");
  r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch / "enc", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(InitCommandTest, Errors) {
  ScratchDir scratch;
  testing::ShellResult r = RunShell(InitCommand(scratch / "m", "gpt2", 1, /*d_model=*/30));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, StartsWith("error: "));
  EXPECT_THAT(r.err, HasSubstr("--d-model 30 is not divisible by --heads 4"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "m"));
  ASSERT_EQ(RunShell(InitCommand(scratch / "m", "gpt2", 1)).exit_code, 0);
  r = RunShell(InitCommand(scratch / "m", "gpt2", 2));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("already exists"));
  r = RunShell(InitCommand(scratch / "x", "bert", 1));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunShell(fmt::format("{} init --tokenizer {} --d-model 8 --heads 2 --layers 1 --max-len 8 --seed 1 -o {}",
                           Tokvec(), scratch / "nope.tokvec", scratch / "y"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("nope.tokvec"));
}

// The text a directory embeds, as JSON ("vectors" of every token).
nlohmann::json EmbedJson(const std::string& model, const std::string& input) {
  testing::ShellResult r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), model, input));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// init --from after extend: GPT-2 (tied) grown by merges learned on Japanese, Llama (untied lm_head, sharded) by
// added tokens. Old rows stay bit for bit, so text without new tokens embeds to the same vectors; the new rows sit
// at the mean token; the grown model trains with fit on text that uses the new tokens.
TEST(InitCommandTest, FromGrowsTheTokenTablesOfAnExtendedTokenizer) {
  ScratchDir scratch;
  std::string japanese;
  for (int i = 0; i < 200; ++i) japanese += "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n";
  testing::WriteWhole(scratch / "ja.txt", japanese);
  testing::WriteWhole(scratch / "in.txt", "Your cat is a lovely cat\n");
  testing::WriteWhole(scratch / "tokens.txt", "<|tool|>\nKubernetes\n");
  struct Case {
    std::string source, extend, table, head;
  };
  for (const Case& c : {Case{"hf_gpt2_f32", "--more-merges 40 " + (scratch / "ja.txt"), "wte.weight", ""},
                        Case{"hf_llama_sharded", "--add-tokens " + (scratch / "tokens.txt"), "model.embed_tokens.weight",
                             "lm_head.weight"}}) {
    const std::string source = ModelTestdata() + "/" + c.source;
    const std::string extended = scratch / (c.source + ".json"), grown = scratch / (c.source + "_grown");
    testing::ShellResult r = RunShell(fmt::format("{} extend -m {}/vocab.json {} -o {}", Tokvec(), source, c.extend,
                                                  extended));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // "-o dir/" (a trailing slash) names the folder, as in docs/models.md.
    r = RunShell(fmt::format("{} init --from {}/ --tokenizer {} --seed 4 -o {}/", Tokvec(), source, extended, grown));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("drawn around the mean token"));  // sampled, not the mean-only fallback
    absl::StatusOr<ModelConfig> config = LoadModelConfig(grown + "/config.json");
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_GT(config->vocab_size, 297) << c.source;
    absl::StatusOr<std::unique_ptr<SafetensorsFile>> weights = SafetensorsFile::Open(grown + "/model.safetensors");
    ASSERT_TRUE(weights.ok()) << weights.status();
    for (const std::string& name : {c.table, c.head}) {
      if (name.empty()) continue;
      absl::StatusOr<FloatTensor> t = (*weights)->ReadFloat32(name);
      ASSERT_TRUE(t.ok()) << name;
      ASSERT_EQ(t->shape, (std::vector<int64_t>{config->vocab_size, 32})) << name;
      // The mean of the old rows; every new row within 1e-3 of it (the draws' scale is 3e-5 of the spread).
      std::vector<double> mean(32, 0.0);
      for (int64_t r0 = 0; r0 < 297; ++r0) {
        for (int k = 0; k < 32; ++k) mean[k] += t->data[r0 * 32 + k] / 297.0;
      }
      for (int64_t row = 297; row < config->vocab_size; ++row) {
        for (int k = 0; k < 32; ++k) ASSERT_NEAR(t->data[row * 32 + k], mean[k], 1e-3) << name << " row " << row;
      }
    }
    const nlohmann::json before = EmbedJson(source, scratch / "in.txt"), after = EmbedJson(grown, scratch / "in.txt");
    EXPECT_EQ(before["ids"], after["ids"]) << c.source;
    EXPECT_EQ(before["vectors"], after["vectors"]) << c.source << ": old rows must keep every bit";
    if (c.source == "hf_gpt2_f32") {
      // The Japanese text now uses new ids, and the grown model trains on it.
      testing::WriteWhole(scratch / "ja1.txt", "吾輩は猫である。\n");
      const nlohmann::json ja = EmbedJson(grown, scratch / "ja1.txt");
      bool new_id = false;
      for (const auto& id : ja["ids"]) new_id |= id.get<int64_t>() >= 297;
      EXPECT_TRUE(new_id);
      r = RunShell(fmt::format("{} fit -m {} --data {} --seq-len 16 --batch 2 --steps 3 -o {}", Tokvec(), grown,
                               scratch / "ja.txt", scratch / "fitted"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_TRUE(std::filesystem::exists(scratch / "fitted/model.safetensors"));
    }
  }
}

}  // namespace
}  // namespace tokvec
