// `tokvec fit` and `tokvec eval` end to end through the binary: the loss falls on data/corpus.txt, the output
// is a model directory `embed`/`attend` read as is (from `init` models and a Hugging Face GPT-2 directory),
// --resume gives the same bytes as an uninterrupted run, and Ctrl-C leaves a resumable checkpoint.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using testing::ReadWhole;
using testing::RunShell;
using testing::ScratchDir;
using testing::ShellResult;
using testing::Tokvec;

const std::string kCorpus = std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt";

// A byte-level tokenizer with <|endoftext|> trained on the corpus, and a gpt2 model around it.
void MakeModel(const ScratchDir& scratch, const std::string& name, int d_model, int layers,
               const std::string& init_options = "") {
  if (!std::filesystem::exists(scratch / "tok.tokvec")) {
    ShellResult r = RunShell(fmt::format("{} train --type byte --pattern gpt2 --merges 200 --special '<|endoftext|>' "
                                         "-o {} {}", Tokvec(), scratch / "tok.tokvec", kCorpus));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ShellResult r = RunShell(fmt::format("{} init --tokenizer {} --arch gpt2 --d-model {} --heads 2 --layers {} "
                                       "--max-len 32 --seed 1 {} -o {}", Tokvec(), scratch / "tok.tokvec", d_model,
                                       layers, init_options, scratch / name));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

double EvalLoss(const std::string& model) {
  ShellResult r = RunShell(fmt::format("{} eval -m {} --objective clm --data {} --seq-len 32", Tokvec(), model,
                                       kCorpus));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << r.out;
  if (!j.is_object()) return 0;
  EXPECT_NEAR(j["ppl"].get<double>(), std::exp(j["loss"].get<double>()), 1e-9 * j["ppl"].get<double>());
  EXPECT_GT(j["tokens"].get<int64_t>(), 1000);
  return j["loss"].get<double>();
}

// The masked-token loss of `tokvec eval --objective mlm` on the corpus.
double MlmLoss(const std::string& model) {
  ShellResult r = RunShell(fmt::format("{} eval -m {} --objective mlm --data {} --seq-len 32", Tokvec(), model,
                                       kCorpus));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j.is_object() ? j["loss"].get<double>() : 0.0;
}

TEST(FitCommandTest, LossFallsOnCorpusAndOutputEmbeds) {
  ScratchDir scratch;
  MakeModel(scratch, "m", 32, 2);
  const double before = EvalLoss(scratch / "m");
  ShellResult r = RunShell(fmt::format("{} fit -m {} --data {} --eval-data {} --seq-len 32 --batch 8 --steps 80 "
                                       "--lr 3e-3 --warmup 5 --log-every 10 --eval-every 40 --threads 2 -o {}",
                                       Tokvec(), scratch / "m", kCorpus, kCorpus, scratch / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double after = EvalLoss(scratch / "out");
  EXPECT_LT(after, before - 0.5) << "eval loss before " << before << ", after " << after;

  // metrics.jsonl: steps 0, 10, ..., 70, 79, with eval at 39 and 79; the last eval equals `tokvec eval`.
  std::ifstream metrics(scratch / "out/metrics.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(metrics, line);) lines.push_back(nlohmann::json::parse(line));
  std::vector<int64_t> steps;
  for (const auto& j : lines) steps.push_back(j["step"].get<int64_t>());
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 10, 20, 30, 39, 40, 50, 60, 70, 79}));
  for (const auto& j : lines) {
    for (const char* key : {"loss", "lr", "grad_norm", "tokens_per_s"}) EXPECT_TRUE(j.contains(key)) << j.dump();
  }
  EXPECT_TRUE(lines[4].contains("eval_loss"));
  EXPECT_NEAR(lines.back()["eval_loss"].get<double>(), after, 1e-9);
  EXPECT_LT(lines.back()["loss"].get<double>(), lines.front()["loss"].get<double>());

  // The output is a model directory embed and attend read.
  testing::WriteWhole(scratch / "in.txt", "The cat sat on the mat.");
  r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"vectors\""), std::string::npos);
  r = RunShell(fmt::format("{} attend -m {} --format json {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// 6 steps straight at 1 thread, then 3 steps at 2 threads + a resumed 3 at 3 threads: the same bytes.
void ExpectResumeGivesTheSameBytes(const ScratchDir& scratch, const std::string& options) {
  const std::string common = fmt::format("{} fit -m {} --data {} --seq-len 16 --batch 4 --steps 6 --lr 1e-2 "
                                         "--warmup 2 --grad-accum 2 {}", Tokvec(), scratch / "m", kCorpus, options);
  const std::string straight = scratch / "straight", resumed = scratch / "resumed";
  std::filesystem::remove_all(straight);
  std::filesystem::remove_all(resumed);
  ShellResult r = RunShell(fmt::format("{} --seed 5 --threads 1 -o {}", common, straight));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} --seed 5 --threads 2 --stop-after 3 -o {}", common, resumed));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ReadWhole(resumed + "/model.safetensors"), ReadWhole(straight + "/model.safetensors"));
  EXPECT_NE(ReadWhole(resumed + "/trainer_state.json").find("\"step\": 3"), std::string::npos);
  r = RunShell(fmt::format("{} --seed 5 --threads 3 --resume -o {}", common, resumed));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"model.safetensors", "optimizer.safetensors", "trainer_state.json"}) {
    EXPECT_EQ(ReadWhole(resumed + "/" + file), ReadWhole(straight + "/" + file)) << file << " with " << options;
  }
  // Other options than the saved run's are refused.
  r = RunShell(fmt::format("{} --seed 6 --resume -o {}", common, resumed));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("resume with the same options"), std::string::npos) << r.err;
}

TEST(FitCommandTest, ResumeGivesTheSameBytesAsAnUninterruptedRun) {
  ScratchDir scratch;
  MakeModel(scratch, "m", 16, 1);
  ExpectResumeGivesTheSameBytes(scratch, "--dropout 0.1");                       // windows of the stream
  ExpectResumeGivesTheSameBytes(scratch, "--dropout 0.1 --lines");               // one padded line per row
  ExpectResumeGivesTheSameBytes(scratch, "--objective simcse --temperature 0.1");  // line pairs, dropout 0.1
}

// A model with rotary positions (init --positions rotary: no wpe, RoPE in every layer) trains, embeds, attends
// and resumes to the same bytes; its output directory keeps the setting and holds no position table.
TEST(FitCommandTest, RotaryPositionsTrainEmbedAndResume) {
  ScratchDir scratch;
  MakeModel(scratch, "m", 32, 2, "--positions rotary");
  const double before = EvalLoss(scratch / "m");
  ShellResult r = RunShell(fmt::format("{} fit -m {} --data {} --seq-len 32 --batch 8 --steps 60 --lr 3e-3 "
                                       "--warmup 5 --threads 2 -o {}", Tokvec(), scratch / "m", kCorpus,
                                       scratch / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double after = EvalLoss(scratch / "out");
  EXPECT_LT(after, before - 0.5) << "eval loss before " << before << ", after " << after;
  auto config = nlohmann::json::parse(ReadWhole(scratch / "out/config.json"));
  EXPECT_EQ(config["position_embedding_type"], "rotary");
  EXPECT_EQ(config["rope_theta"], 10000.0);
  EXPECT_EQ(ReadWhole(scratch / "out/model.safetensors").find("wpe.weight"), std::string::npos);
  testing::WriteWhole(scratch / "in.txt", "The cat sat on the mat.");
  r = RunShell(fmt::format("{} embed -m {} --lines --pooling mean {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} attend -m {} --format json {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectResumeGivesTheSameBytes(scratch, "--dropout 0.1");
}

// Every kind of attention a causal model can use trains (config "attention", one kind per layer): the held-out
// loss falls, the output keeps the kinds, embeds and attends; a mixed model resumes to the same bytes. Linformer
// (bidirectional only) trains an encoder with mlm, its E and F change, and it resumes to the same bytes too.
TEST(FitCommandTest, OtherKindsOfAttentionTrainEmbedAndResume) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "in.txt", "The cat sat on the mat.");
  for (const char* kind : {"window:8", "longformer:8,2", "bigbird:4,1,1", "performer:16", "linear"}) {
    const std::string name = fmt::format("m_{}", std::string(kind).substr(0, 4));
    MakeModel(scratch, name, 32, 2, fmt::format("--attention {}", kind));
    const double before = EvalLoss(scratch / name);
    ShellResult r = RunShell(fmt::format("{} fit -m {} --data {} --seq-len 32 --batch 8 --steps 60 --lr 3e-3 "
                                         "--warmup 5 --threads 2 -o {}", Tokvec(), scratch / name, kCorpus,
                                         scratch / (name + "_out")));
    ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.err;
    const double after = EvalLoss(scratch / (name + "_out"));
    EXPECT_LT(after, before - 0.5) << kind << ": eval loss before " << before << ", after " << after;
    auto config = nlohmann::json::parse(ReadWhole(scratch / (name + "_out/config.json")));
    EXPECT_EQ(config["attention"], kind) << config.dump();
    r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch / (name + "_out"), scratch / "in.txt"));
    EXPECT_EQ(r.exit_code, 0) << kind << ": " << r.err;
    r = RunShell(fmt::format("{} attend -m {} --format json {}", Tokvec(), scratch / (name + "_out"),
                             scratch / "in.txt"));
    EXPECT_EQ(r.exit_code, 0) << kind << ": " << r.err;
  }
  std::filesystem::remove_all(scratch / "m");
  MakeModel(scratch, "m", 16, 2, "--attention window:4 --attention performer:8");
  ExpectResumeGivesTheSameBytes(scratch, "--dropout 0.1");

  ShellResult r = RunShell(fmt::format("{} train --type byte --pattern gpt2 --merges 200 --special '<mask>' -o {} {}",
                                       Tokvec(), scratch / "mask.tokvec", kCorpus));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} init --tokenizer {} --arch encoder --d-model 32 --heads 2 --layers 2 --max-len 32 "
                           "--seed 1 --attention linformer:8 -o {}", Tokvec(), scratch / "mask.tokvec",
                           scratch / "lin"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double before = MlmLoss(scratch / "lin");
  const std::string common = fmt::format("{} fit -m {} --objective mlm --data {} --seq-len 32 --batch 8 --steps 60 "
                                         "--lr 3e-3 --warmup 5 --dropout 0.1 --seed 3", Tokvec(), scratch / "lin",
                                         kCorpus);
  r = RunShell(fmt::format("{} --threads 2 -o {}", common, scratch / "lin_out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double after = MlmLoss(scratch / "lin_out");
  EXPECT_LT(after, before - 0.3) << "linformer mlm loss before " << before << ", after " << after;
  EXPECT_NE(ReadWhole(scratch / "lin_out/model.safetensors"), ReadWhole(scratch / "lin/model.safetensors"));
  r = RunShell(fmt::format("{} --threads 1 --stop-after 30 -o {}", common, scratch / "lin_resumed"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} --threads 2 --resume -o {}", common, scratch / "lin_resumed"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(scratch / "lin_resumed/model.safetensors"), ReadWhole(scratch / "lin_out/model.safetensors"));
}

// Unsupervised SimCSE learns its task: a line's two dropout-noised encodings become each other's nearest
// neighbour among the batch (the training loss, averaged over the first and the last 20 steps, falls several-fold;
// it measured 0.34 -> 0.04), the output pools as it was trained (sentence-transformers modules), and `tokvec eval
// --objective simcse` gives the eval_loss fit logged.
TEST(FitCommandTest, SimcseLearnsToMatchALinesTwoEncodings) {
  ScratchDir scratch;
  MakeModel(scratch, "m", 32, 2);
  std::string text;  // 150 lines of the corpus's words, 6 each (short enough for the model's 32 positions)
  std::istringstream corpus(ReadWhole(kCorpus));
  std::string word;
  for (int line = 0; line < 150; ++line) {
    for (int w = 0; w < 6 && corpus >> word; ++w) text += (w > 0 ? " " : "") + word;
    text += "\n";
  }
  const std::string held_out = scratch / "held_out.txt";
  testing::WriteWhole(held_out, text);
  ShellResult r = RunShell(fmt::format("{} fit -m {} --objective simcse --data {} --seq-len 32 --batch 32 --steps 100 "
                                       "--lr 3e-3 --log-every 1 --eval-data {} --threads 2 -o {}", Tokvec(),
                                       scratch / "m", kCorpus, held_out, scratch / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream metrics(scratch / "out/metrics.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(metrics, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 100u);
  double first = 0, last = 0;
  for (int i = 0; i < 20; ++i) {
    first += lines[static_cast<size_t>(i)]["loss"].get<double>() / 20;
    last += lines[lines.size() - 20 + static_cast<size_t>(i)]["loss"].get<double>() / 20;
  }
  EXPECT_LT(last, first / 3) << "mean simcse loss of the first 20 steps " << first << ", of the last 20 " << last;
  EXPECT_NE(ReadWhole(scratch / "out/1_Pooling/config.json").find("\"pooling_mode_lasttoken\": true"),
            std::string::npos);
  r = RunShell(fmt::format("{} embed -m {} --lines --format tsv {}", Tokvec(), scratch / "out", held_out));
  ASSERT_EQ(r.exit_code, 0) << r.err;  // --pooling auto: one pooled vector per line
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 150);
  r = RunShell(fmt::format("{} eval -m {} --objective simcse --data {} --seq-len 32 --batch 32", Tokvec(),
                           scratch / "out", held_out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["loss"].get<double>(), lines.back()["eval_loss"].get<double>(), 1e-9);
  EXPECT_FALSE(lines.back().contains("eval_ppl"));
}

TEST(FitCommandTest, CtrlCSavesAResumableCheckpoint) {
  ScratchDir scratch;
  MakeModel(scratch, "m", 16, 1);
  const std::string command = fmt::format("{} fit -m {} --data {} --seq-len 16 --batch 4 --steps 1000000 -o {}",
                                          Tokvec(), scratch / "m", kCorpus, scratch / "out");
  ShellResult r = RunShell(fmt::format("( {} & pid=$!; while [ ! -f {} ]; do sleep 0.05; done; sleep 0.3; "
                                       "kill -INT $pid; wait $pid )", command, scratch / "out/metrics.jsonl"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("interrupted; checkpoint at step"), std::string::npos) << r.err;
  auto state = nlohmann::json::parse(ReadWhole(scratch / "out/trainer_state.json"));
  EXPECT_GT(state["step"].get<int64_t>(), 0);
  r = RunShell(fmt::format("{} --resume --stop-after 1", command));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto resumed = nlohmann::json::parse(ReadWhole(scratch / "out/trainer_state.json"));
  EXPECT_EQ(resumed["step"].get<int64_t>(), state["step"].get<int64_t>() + 1);
}

TEST(FitCommandTest, EncoderModelsAreRefusedByName) {
  ScratchDir scratch;
  MakeModel(scratch, "m", 16, 1);  // for the tokenizer
  ShellResult r = RunShell(fmt::format("{} init --tokenizer {} --arch encoder --d-model 16 --heads 2 --layers 1 "
                                       "--max-len 32 --seed 1 -o {}", Tokvec(), scratch / "tok.tokvec",
                                       scratch / "enc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} fit -m {} --data {} --seq-len 8 --batch 2 --steps 1 -o {}", Tokvec(), scratch / "enc",
                           kCorpus, scratch / "out"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--objective clm needs a causal model (gpt2); this model is 'encoder'"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "out"));
}

TEST(FitCommandTest, MlmTrainsAnEncoder) {
  ScratchDir scratch;
  ShellResult r = RunShell(fmt::format("{} train --type byte --pattern gpt2 --merges 200 --special '<mask>' -o {} {}",
                                       Tokvec(), scratch / "tok.tokvec", kCorpus));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} init --tokenizer {} --arch encoder --d-model 32 --heads 2 --layers 2 --max-len 32 "
                           "--seed 1 -o {}", Tokvec(), scratch / "tok.tokvec", scratch / "enc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double before = MlmLoss(scratch / "enc");
  r = RunShell(fmt::format("{} fit -m {} --objective mlm --data {} --eval-data {} --seq-len 32 --batch 8 --steps 60 "
                           "--lr 3e-3 --warmup 5 --threads 2 -o {}", Tokvec(), scratch / "enc", kCorpus, kCorpus,
                           scratch / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double after = MlmLoss(scratch / "out");
  EXPECT_LT(after, before - 0.3) << "mlm loss before " << before << ", after " << after;
  EXPECT_NE(ReadWhole(scratch / "out/trainer_state.json").find("\"objective\": \"mlm\""), std::string::npos);
  // The trained encoder is a model directory embed reads.
  testing::WriteWhole(scratch / "in.txt", "The cat sat on the mat.");
  r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(FitCommandTest, HuggingFaceGpt2DirectoryTrainsAndEmbeds) {
  ScratchDir scratch;
  const std::string hf = testing::ModelTestdata() + "/hf_gpt2_f32";
  testing::WriteWhole(scratch / "in.txt", "low lower newest widest low lower newest widest\n");
  ShellResult r = RunShell(fmt::format("{} fit -m {} --data {} --seq-len 8 --batch 2 --steps 3 -o {}", Tokvec(), hf,
                                       scratch / "in.txt", scratch / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ReadWhole(scratch / "out/model.safetensors"), ReadWhole(hf + "/model.safetensors"));
}

// A Hugging Face RoBERTa directory (sentence-transformers layout, RobertaModel without lm_head): mlm lowers the
// masked-token loss, the output keeps the sentence-transformers pooling and embeds, and resume is bit-identical.
TEST(FitCommandTest, HuggingFaceRobertaDirectoryTrainsWithMlmAndEmbeds) {
  ScratchDir scratch;
  const std::string hf = testing::ModelTestdata() + "/hf_roberta_f32";
  auto eval = [&](const std::string& model) {
    ShellResult r = RunShell(fmt::format("{} eval -m {} --objective mlm --data {} --seq-len 32", Tokvec(), model,
                                         kCorpus));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_object() ? j["loss"].get<double>() : 0.0;
  };
  const std::string common = fmt::format("{} fit -m {} --objective mlm --data {} --seq-len 32 --batch 8 --steps 40 "
                                         "--lr 1e-3 --dropout 0.1 --seed 3", Tokvec(), hf, kCorpus);
  ShellResult r = RunShell(fmt::format("{} --threads 2 -o {}", common, scratch / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("has no lm_head"), std::string::npos) << r.err;
  const double before = eval(hf), after = eval(scratch / "out");
  EXPECT_LT(after, before - 1.0) << "mlm loss before " << before << ", after " << after;
  EXPECT_TRUE(std::filesystem::exists(scratch / "out/modules.json"));
  EXPECT_TRUE(std::filesystem::exists(scratch / "out/1_Pooling/config.json"));
  testing::WriteWhole(scratch / "in.txt", "The cat sat on the mat.\nA dog ran.\n");
  r = RunShell(fmt::format("{} embed -m {} --lines --format tsv {}", Tokvec(), scratch / "out", scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2);  // pooled as the directory says
  r = RunShell(fmt::format("echo 'The cat sat' | {} attend -m {} --layer 1 --head 0", Tokvec(), scratch / "out"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // 20 steps + 20 resumed at another thread count: the same bytes.
  r = RunShell(fmt::format("{} --threads 1 --stop-after 20 -o {}", common, scratch / "resumed"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} --threads 3 --resume -o {}", common, scratch / "resumed"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"model.safetensors", "optimizer.safetensors", "trainer_state.json"}) {
    EXPECT_EQ(ReadWhole(scratch / ("resumed/" + std::string(file))), ReadWhole(scratch / ("out/" + std::string(file))))
        << file;
  }
  // clm is refused by name.
  r = RunShell(fmt::format("{} fit -m {} --data {} --seq-len 8 --batch 2 --steps 1 -o {}", Tokvec(), hf, kCorpus,
                           scratch / "clm"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("this model is 'roberta'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokvec
