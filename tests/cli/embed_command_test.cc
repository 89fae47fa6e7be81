// `tokvec embed` end to end on the Hugging Face-layout checkpoints of scripts/gen_hf_checkpoints.py: ids and
// per-token vectors against PyTorch, sentence-transformers pooling, --lines, windows, and the bad-checkpoint table.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "embeddings/safetensors.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ModelTestdata;
using testing::RunShell;
using testing::ScratchDir;
using testing::Tokvec;

nlohmann::json Reference(const std::string& arch) {
  return nlohmann::json::parse(testing::ReadWhole(ModelTestdata() + "/hf_" + arch + "_reference.json"));
}

// Max |a - b| over two [T, D] nested arrays; fails the test on a shape mismatch.
double MaxDiff(const nlohmann::json& a, const nlohmann::json& b) {
  double max = 0;
  EXPECT_EQ(a.size(), b.size());
  for (size_t t = 0; t < std::min(a.size(), b.size()); ++t) {
    EXPECT_EQ(a[t].size(), b[t].size());
    for (size_t j = 0; j < std::min(a[t].size(), b[t].size()); ++j) {
      max = std::max(max, std::abs(a[t][j].get<double>() - b[t][j].get<double>()));
    }
  }
  return max;
}

class EmbedParityTest : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(EmbedParityTest, IdsIdenticalAndVectorsWithin1e4OfTorch) {
  const auto& [arch, dtype] = GetParam();
  nlohmann::json reference = Reference(arch);
  ScratchDir scratch;
  std::string lines;
  for (const auto& text : reference["texts"]) lines += text.get<std::string>() + "\n";
  testing::WriteWhole(scratch / "texts.txt", lines);
  // Every text as its own run (all threads on one text) ...
  double max_diff = 0;
  for (size_t i = 0; i < reference["texts"].size(); ++i) {
    testing::WriteWhole(scratch / "one.txt", reference["texts"][i].get<std::string>() + "\n");
    testing::ShellResult r = RunShell(fmt::format("{} embed -m {}/hf_{}_{} --pooling none --threads 2 {}", Tokvec(),
                                                  ModelTestdata(), arch, dtype, scratch / "one.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json out = nlohmann::json::parse(r.out);
    EXPECT_EQ(out["ids"], reference["ids"][i]) << reference["texts"][i];
    ASSERT_EQ(out["tokens"].size(), out["ids"].size());
    const double diff = MaxDiff(out["vectors"], reference[dtype]["hidden"][i]);
    EXPECT_LE(diff, 1e-4) << reference["texts"][i];
    max_diff = std::max(max_diff, diff);
  }
  // ... and all texts at once with --lines over 2 threads (JSON Lines, same order).
  testing::ShellResult r = RunShell(fmt::format("{} embed -m {}/hf_{}_{} --pooling none --lines --threads 2 {}",
                                                Tokvec(), ModelTestdata(), arch, dtype, scratch / "texts.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t i = 0;
  for (size_t begin = 0, end; (end = r.out.find('\n', begin)) != std::string::npos; begin = end + 1, ++i) {
    nlohmann::json out = nlohmann::json::parse(r.out.substr(begin, end - begin));
    ASSERT_LT(i, reference["texts"].size());
    EXPECT_EQ(out["ids"], reference["ids"][i]);
    max_diff = std::max(max_diff, MaxDiff(out["vectors"], reference[dtype]["hidden"][i]));
  }
  EXPECT_EQ(i, reference["texts"].size());
  EXPECT_LE(max_diff, 1e-4);
  std::printf("[ measured ] tokvec embed %s %s: max |tokvec - torch| = %.3g\n", arch.c_str(), dtype.c_str(), max_diff);
}

INSTANTIATE_TEST_SUITE_P(HuggingFace, EmbedParityTest,
                         ::testing::Values(std::pair{"gpt2", "f32"}, std::pair{"gpt2", "f16"},
                                           std::pair{"gpt2", "bf16"}, std::pair{"roberta", "f32"},
                                           std::pair{"roberta", "f16"}, std::pair{"roberta", "bf16"},
                                           std::pair{"bert", "f32"}, std::pair{"bert", "f16"},
                                           std::pair{"bert", "bf16"}, std::pair{"bert", "sharded"},
                                           std::pair{"llama", "f32"}, std::pair{"llama", "bf16"},
                                           std::pair{"qwen2", "f32"}, std::pair{"qwen2", "bf16"},
                                           std::pair{"qwen3", "f32"}, std::pair{"qwen3", "bf16"}),
                         [](const auto& info) { return info.param.first + "_" + info.param.second; });

// Rows of `tokvec embed --format tsv` output as a nested JSON array.
nlohmann::json TsvRows(const std::string& out) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t begin = 0, end; (end = out.find('\n', begin)) != std::string::npos; begin = end + 1) {
    nlohmann::json row = nlohmann::json::array();
    std::string line = out.substr(begin, end - begin);
    for (size_t b = 0, e; b <= line.size(); b = e + 1) {
      e = line.find('\t', b);
      if (e == std::string::npos) e = line.size();
      row.push_back(std::stod(line.substr(b, e - b)));
    }
    rows.push_back(row);
  }
  return rows;
}

// sentence-transformers-shaped BERT directories (modules.json, 1_Pooling, Normalize): the default --pooling auto
// gives the reference's pooled vectors: all-MiniLM's mean + Normalize (f32), BGE's cls + Normalize (f16), last
// token (sharded); bf16 has no modules, so --pooling mean is asked for.
TEST(EmbedCommandTest, BertSentenceTransformersDirectoriesGiveTheReferenceVectors) {
  nlohmann::json reference = Reference("bert");
  ScratchDir scratch;
  std::string lines;
  for (const auto& text : reference["texts"]) lines += text.get<std::string>() + "\n";
  testing::WriteWhole(scratch / "texts.txt", lines);
  for (const std::string copy : {"f32", "f16", "sharded", "bf16"}) {
    const std::string pooling = copy == "bf16" ? "--pooling mean" : "";
    testing::ShellResult r = RunShell(fmt::format("{} embed -m {}/hf_bert_{} --lines --threads 2 --format tsv {} {}",
                                                  Tokvec(), ModelTestdata(), copy, pooling, scratch / "texts.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double diff = MaxDiff(TsvRows(r.out), reference[copy]["pooled"]);
    EXPECT_LE(diff, 1e-4) << copy;
    std::printf("[ measured ] embed bert %s (%s%s): max |tokvec - torch| pooled = %.3g\n", copy.c_str(),
                reference[copy]["pooling"].get<std::string>().c_str(),
                reference[copy]["normalize"].get<bool>() ? " + Normalize" : "", diff);
  }
}

TEST(EmbedCommandTest, SentenceTransformersPoolingIsTheDefault) {
  nlohmann::json reference = Reference("roberta");
  ScratchDir scratch;
  std::string lines;
  for (const auto& text : reference["texts"]) lines += text.get<std::string>() + "\n";
  testing::WriteWhole(scratch / "texts.txt", lines);
  testing::ShellResult r = RunShell(fmt::format("{} embed -m {}/hf_roberta_f32 --lines --format tsv {}", Tokvec(),
                                                ModelTestdata(), scratch / "texts.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double diff = MaxDiff(TsvRows(r.out), reference["f32"]["pooled"]);
  EXPECT_LE(diff, 1e-5);
  std::printf("[ measured ] mean pooling + Normalize vs sentence-transformers reference: %.3g\n", diff);
}

TEST(EmbedCommandTest, NpyShapes) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "t.txt", "Your cat is a lovely cat\nThe quick brown fox\n");
  testing::ShellResult r =
      RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 --lines --pooling last --normalize --format npy -o {} {}",
                           Tokvec(), ModelTestdata(), scratch / "v.npy", scratch / "t.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string npy = testing::ReadWhole(scratch / "v.npy");
  EXPECT_NE(npy.find("'shape': (2, 32,)"), std::string::npos);
  r = RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 --lines --format npy {}", Tokvec(), ModelTestdata(),
                           scratch / "t.txt"));
  EXPECT_EQ(r.exit_code, 2) << "npy with --lines needs a pooling: " << r.err;
  r = RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 --stride 3 {}", Tokvec(), ModelTestdata(), scratch / "t.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 --pooling avg {}", Tokvec(), ModelTestdata(), scratch / "t.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(EmbedCommandTest, TooLongInputIsAnErrorUnlessWindowsAreAsked) {
  ScratchDir scratch;
  std::string text;
  for (int i = 0; i < 30; ++i) text += "The quick brown fox jumps over the lazy dog. ";
  testing::WriteWhole(scratch / "long.txt", text);
  testing::ShellResult r =
      RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 {}", Tokvec(), ModelTestdata(), scratch / "long.txt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, AllOf(StartsWith("error: "), HasSubstr("maximum of 48"), HasSubstr("--window")));
  r = RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 --window 48 --stride 16 {}", Tokvec(), ModelTestdata(),
                           scratch / "long.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_GT(out["ids"].size(), 48u);
  EXPECT_EQ(out["vectors"].size(), out["ids"].size());
  r = RunShell(fmt::format("{} embed -m {}/hf_gpt2_f32 --window 60 --stride 16 {}", Tokvec(), ModelTestdata(),
                           scratch / "long.txt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--window 60 is longer"));
}

// --- Bad checkpoints: each is `error: ...` naming the tensor, key or file, exit 1, never a crash. ---

// Copies the F32 GPT-2 test model into `dir` (tokenizer, config, weights).
void CopyModel(const std::string& dir) {
  for (const char* name : {"vocab.json", "merges.txt", "config.json", "model.safetensors"}) {
    std::filesystem::copy_file(ModelTestdata() + "/hf_gpt2_f32/" + name, dir + "/" + name);
  }
}

// Rewrites dir/model.safetensors through `edit` of the (name -> values, shape) list.
void RewriteWeights(const std::string& dir,
                    const std::function<void(std::vector<std::pair<NamedTensor, std::vector<float>>>*)>& edit) {
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::Open(dir + "/model.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  std::vector<std::pair<NamedTensor, std::vector<float>>> tensors;
  for (const SafetensorsEntry& e : (*file)->entries()) {
    absl::StatusOr<FloatTensor> t = (*file)->ReadFloat32(e.name);
    ASSERT_TRUE(t.ok()) << t.status();
    tensors.push_back({NamedTensor{e.name, e.shape, nullptr}, std::vector<float>(t->data, t->data + t->num_elements())});
  }
  edit(&tensors);
  std::vector<NamedTensor> named;
  for (auto& [n, values] : tensors) {
    n.values = values.data();
    named.push_back(n);
  }
  ASSERT_TRUE(WriteSafetensors(dir + "/model.safetensors", named).ok());
}

struct BadCheckpoint {
  std::string label;
  std::function<void(const std::string& dir)> corrupt;
  std::vector<std::string> mentions;
};

// Each case: a fresh copy (`copy` fills the folder), broken by `corrupt`; `embed` must exit 1 with `error: ...`
// naming every `mentions`, and print nothing.
void ExpectEmbedErrors(const std::vector<BadCheckpoint>& cases, const std::function<void(const std::string&)>& copy) {
  for (const BadCheckpoint& c : cases) {
    ScratchDir scratch;
    copy(scratch.path());
    c.corrupt(scratch.path());
    testing::WriteWhole(scratch / "in.txt", "Your cat");
    testing::ShellResult r = RunShell(fmt::format("{} embed -m {} {}", Tokvec(), scratch.path(), scratch / "in.txt"));
    EXPECT_EQ(r.exit_code, 1) << c.label << ": " << r.err;
    EXPECT_THAT(r.err, StartsWith("error: ")) << c.label;
    for (const std::string& m : c.mentions) EXPECT_THAT(r.err, HasSubstr(m)) << c.label;
    EXPECT_TRUE(r.out.empty()) << c.label;
  }
}

TEST(EmbedCommandTest, BadCheckpointsAreErrorsNamingTheCulprit) {
  const std::vector<BadCheckpoint> cases = {
      {"missing tensor",
       [](const std::string& dir) {
         RewriteWeights(dir, [](auto* t) {
           std::erase_if(*t, [](const auto& x) { return x.first.name == "h.1.mlp.c_fc.bias"; });
         });
       },
       {"'h.1.mlp.c_fc.bias'", "model.safetensors", "[64]"}},
      {"wrong shape",
       [](const std::string& dir) {
         RewriteWeights(dir, [](auto* t) {
           for (auto& [n, v] : *t) {
             if (n.name == "h.0.attn.c_attn.weight") {
               n.shape = {32, 64};
               v.resize(32 * 64);
             }
           }
         });
       },
       {"'h.0.attn.c_attn.weight'", "[32, 64]", "expected [32, 96]"}},
      {"unsupported dtype",
       [](const std::string& dir) {
         std::string bytes = testing::ReadWhole(dir + "/model.safetensors");
         const size_t at = bytes.find("\"ln_f.weight\":{\"dtype\":\"F32\"");
         ASSERT_NE(at, std::string::npos);
         bytes.replace(bytes.find("F32", at), 3, "I32");  // same size per element, so the header stays valid
         testing::WriteWhole(dir + "/model.safetensors", bytes);
       },
       {"'ln_f.weight'", "dtype I32", "model.safetensors"}},
      {"unsupported model_type",
       [](const std::string& dir) {
         nlohmann::json c = nlohmann::json::parse(testing::ReadWhole(dir + "/config.json"));
         c["model_type"] = "t5";
         testing::WriteWhole(dir + "/config.json", c.dump());
       },
       {"config.json", "unsupported model_type \"t5\""}},
      {"truncated safetensors",
       [](const std::string& dir) {
         std::string bytes = testing::ReadWhole(dir + "/model.safetensors");
         testing::WriteWhole(dir + "/model.safetensors", bytes.substr(0, bytes.size() / 2));
       },
       {"model.safetensors", "truncated"}},
      {"header length past the file",
       [](const std::string& dir) {
         std::string bytes = testing::ReadWhole(dir + "/model.safetensors");
         bytes[5] = '\x01';  // header length += 2^40
         testing::WriteWhole(dir + "/model.safetensors", bytes);
       },
       {"model.safetensors", "header length"}},
      {"data offsets past the file",
       [](const std::string& dir) {
         std::string bytes = testing::ReadWhole(dir + "/model.safetensors");
         const size_t at = bytes.find("\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[297,32],\"data_offsets\":[");
         ASSERT_NE(at, std::string::npos) << bytes.substr(0, 300);
         const size_t digits = bytes.find('[', bytes.find("data_offsets", at));
         bytes.replace(digits + 1, 1, "9");  // begin 9xxxx: past the data (and begin > end or size mismatch)
         testing::WriteWhole(dir + "/model.safetensors", bytes);
       },
       {"model.safetensors", "'wte.weight'", "data_offsets"}},
      {"config missing a key",
       [](const std::string& dir) {
         nlohmann::json c = nlohmann::json::parse(testing::ReadWhole(dir + "/config.json"));
         c.erase("n_head");
         testing::WriteWhole(dir + "/config.json", c.dump());
       },
       {"config.json", "'n_head'", "missing"}},
      {"no weights file",
       [](const std::string& dir) { std::filesystem::remove(dir + "/model.safetensors"); },
       {"model.safetensors"}},
  };
  ExpectEmbedErrors(cases, CopyModel);
}

// The same for BERT directories: a copy of the sharded test model (two shards + model.safetensors.index.json).
TEST(EmbedCommandTest, BadBertDirectoriesAreErrorsNamingTheCulprit) {
  const std::string first = "model-00001-of-00002.safetensors", second = "model-00002-of-00002.safetensors";
  auto edit_index = [](const std::string& dir, const std::function<void(nlohmann::json*)>& edit) {
    nlohmann::json index = nlohmann::json::parse(testing::ReadWhole(dir + "/model.safetensors.index.json"));
    edit(&index);
    testing::WriteWhole(dir + "/model.safetensors.index.json", index.dump());
  };
  const std::vector<BadCheckpoint> cases = {
      {"missing shard", [&](const std::string& dir) { std::filesystem::remove(dir + "/" + second); },
       {"model.safetensors.index.json", second, "does not exist"}},
      {"tensor in two shards",
       [&](const std::string& dir) { std::filesystem::copy_file(dir + "/" + first, dir + "/" + second,
                                                                std::filesystem::copy_options::overwrite_existing); },
       {"model.safetensors.index.json", "is in two shards"}},
      {"index names a missing tensor",
       [&](const std::string& dir) {
         edit_index(dir, [&](nlohmann::json* index) { (*index)["weight_map"]["encoder.layer.9.output.dense.weight"] = first; });
       },
       {"maps tensor 'encoder.layer.9.output.dense.weight'", first}},
      {"index without weight_map",
       [&](const std::string& dir) { edit_index(dir, [](nlohmann::json* index) { index->erase("weight_map"); }); },
       {"model.safetensors.index.json", "'weight_map'"}},
      {"shard outside the folder",
       [&](const std::string& dir) {
         edit_index(dir, [](nlohmann::json* index) { (*index)["weight_map"]["pooler.dense.bias"] = "../x.safetensors"; });
       },
       {"'../x.safetensors'", "beside the index"}},
      {"only pytorch_model.bin",
       [&](const std::string& dir) {
         std::filesystem::remove(dir + "/model.safetensors.index.json");
         testing::WriteWhole(dir + "/pytorch_model.bin", "PK\x03\x04 a torch pickle");
       },
       {"no model.safetensors", "pytorch_model.bin", "convert"}},
      {"relative position embeddings",
       [](const std::string& dir) {
         nlohmann::json c = nlohmann::json::parse(testing::ReadWhole(dir + "/config.json"));
         c["position_embedding_type"] = "relative_key_query";
         testing::WriteWhole(dir + "/config.json", c.dump());
       },
       {"config.json", "'position_embedding_type'", "relative_key_query", "only \"absolute\""}},
      {"tokenizer without [SEP] nor a post-processor",
       [](const std::string& dir) {
         nlohmann::json t = nlohmann::json::parse(testing::ReadWhole(dir + "/tokenizer.json"));
         nlohmann::json kept = nlohmann::json::array();
         for (const nlohmann::json& a : t["added_tokens"]) {
           if (a["content"] != "[SEP]") kept.push_back(a);
         }
         t["added_tokens"] = kept;
         const uint64_t id = t["model"]["vocab"]["[SEP]"].get<uint64_t>();
         t["model"]["vocab"].erase("[SEP]");
         t["model"]["vocab"]["[SEPARATOR]"] = id;
         t.erase("post_processor");  // with one, its ids are used (as Hugging Face does) and no lookup happens
         testing::WriteWhole(dir + "/tokenizer.json", t.dump());
       },
       {"model_type \"bert\"", "has no token '[SEP]'"}},
  };
  ExpectEmbedErrors(cases, [](const std::string& dir) {
    std::filesystem::copy(ModelTestdata() + "/hf_bert_sharded", dir, std::filesystem::copy_options::recursive);
  });
}

// A Qwen3-Embedding-shaped directory (tokenizer.json, modules.json with pooling_mode_lasttoken and Normalize):
// `embed --lines` pools the last token and normalizes, as sentence-transformers does.
TEST(EmbedCommandTest, Qwen3EmbeddingPoolsTheLastTokenByDefault) {
  nlohmann::json reference = Reference("qwen3");
  ScratchDir scratch;
  std::string lines;
  for (const auto& text : reference["texts"]) lines += text.get<std::string>() + "\n";
  testing::WriteWhole(scratch / "texts.txt", lines);
  for (const std::string dtype : {"f32", "bf16"}) {
    testing::ShellResult r = RunShell(fmt::format("{} embed -m {}/hf_qwen3_{} --lines --threads 2 {}", Tokvec(),
                                                  ModelTestdata(), dtype, scratch / "texts.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json pooled = nlohmann::json::array();
    for (size_t begin = 0, end; (end = r.out.find('\n', begin)) != std::string::npos; begin = end + 1) {
      nlohmann::json out = nlohmann::json::parse(r.out.substr(begin, end - begin));
      ASSERT_EQ(out["vectors"].size(), 1u) << "one pooled vector per text";
      pooled.push_back(out["vectors"][0]);
    }
    const double diff = MaxDiff(pooled, reference[dtype]["pooled"]);
    EXPECT_LE(diff, 1e-4);
    std::printf("[ measured ] qwen3 %s last-token pooling + Normalize vs torch: %.3g\n", dtype.c_str(), diff);
  }
}

// TOKVEC_GEMM=openblas turns off the packed AVX-512 GEMM (kernels/packed_gemm.h): that OpenBLAS path, which
// CPUs without AVX-512 take, still gives PyTorch's vectors, and so does the default on this CPU.
TEST(EmbedCommandTest, OpenBlasAndPackedGemmBothMatchTorch) {
  for (const std::string arch : {"gpt2", "bert", "qwen3"}) {
    nlohmann::json reference = Reference(arch);
    ScratchDir scratch;
    testing::WriteWhole(scratch / "one.txt", reference["texts"][0].get<std::string>() + "\n");
    for (const std::string env : {"TOKVEC_GEMM=openblas ", ""}) {
      testing::ShellResult r = RunShell(fmt::format("{}{} embed -m {}/hf_{}_f32 --pooling none --threads 2 {}", env,
                                                    Tokvec(), ModelTestdata(), arch, scratch / "one.txt"));
      ASSERT_EQ(r.exit_code, 0) << env << r.err;
      const double diff = MaxDiff(nlohmann::json::parse(r.out)["vectors"], reference["f32"]["hidden"][0]);
      EXPECT_LE(diff, 1e-4) << arch << " " << env;
    }
  }
}

}  // namespace
}  // namespace tokvec
