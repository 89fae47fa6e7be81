// `tokvec word2vec` end to end: train -> similar / analogy / evaluate, byte-identical files with --deterministic
// for --threads 1, 2 and 8 (text and binary), token vectors with --tokenizer, and `tokvec init
// --token-embeddings` putting those vectors into the model's token table.
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "embeddings/safetensors.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"
#include "word2vec/vectors.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::ModelTestdata;
using testing::RunShell;
using testing::ScratchDir;
using testing::Tokvec;

// Lines "the aN eats fN at the pN": words of a group (a, f, p) share their contexts.
std::string GroupText(int lines) {
  std::mt19937 rng(4);
  std::string text;
  for (int i = 0; i < lines; ++i) {
    text += fmt::format("the a{} eats f{} at the p{}\n", rng() % 8, rng() % 8, rng() % 8);
  }
  return text;
}

TEST(Word2VecCommandTest, TrainThenSimilarAnalogyEvaluate) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "text.txt", GroupText(4000));
  testing::ShellResult r = RunShell(fmt::format(
      "{} word2vec train --arch cbow --dim 20 --window 2 --sample 0 --min-count 1 --epochs 3 --threads 2 -o {} {}",
      Tokvec(), scratch / "v.bin", scratch / "text.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("wrote "));
  EXPECT_THAT(r.err, HasSubstr("28 words x 20 dims"));  // 24 group words, the, eats, at, </s>

  r = RunShell(fmt::format("{} word2vec similar -v {} a3 f5 -k 5", Tokvec(), scratch / "v.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int lines = 0;
  for (size_t begin = 0; begin < r.out.size();) {
    const size_t end = r.out.find('\n', begin);
    const std::string line = r.out.substr(begin, end - begin);
    begin = end + 1;
    ++lines;
    // "a3\ta6\t0.9123": the neighbour is of the query's group.
    EXPECT_EQ(line[0], line[line.find('\t') + 1]) << r.out;
  }
  EXPECT_EQ(lines, 10);

  r = RunShell(fmt::format("{} word2vec analogy -v {} a1 a2 f3 -k 3", Tokvec(), scratch / "v.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("a2-a1+f3\tf"));

  testing::WriteWhole(scratch / "q.txt", ": groups\na1 a2 f1 f2\nf1 f2 p1 p2\n: unknown\na1 a2 zz f1\n");
  testing::WriteWhole(scratch / "s.txt", "a1 a2 10\na1 f1 1\nf1 f2 9\np1 zz 3\n");
  r = RunShell(fmt::format("{} word2vec evaluate -v {} --analogies {} --similarity {} --json", Tokvec(),
                           scratch / "v.bin", scratch / "q.txt", scratch / "s.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["analogies"]["total"]["questions"], 3);
  EXPECT_EQ(j["analogies"]["total"]["answered"], 2);
  EXPECT_EQ(j["analogies"]["sections"][1]["answered"], 0);
  EXPECT_EQ(j["similarity"][0]["used"], 3);
  EXPECT_EQ(j["similarity"][0]["pairs"], 4);

  r = RunShell(fmt::format("{} word2vec evaluate -v {} --similarity {}", Tokvec(), scratch / "v.bin", scratch / "s.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("spearman"));
  EXPECT_THAT(r.out, HasSubstr("(3 of 4 pairs)"));
}

TEST(Word2VecCommandTest, DeterministicFilesAreIdenticalForAnyThreadCount) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "text.txt", GroupText(5000));  // 35k words: several blocks
  for (const char* ext : {"txt", "bin"}) {
    for (const char* arch : {"skipgram", "cbow"}) {
      std::string first;
      for (int threads : {1, 2, 8}) {
        const std::string out = scratch / fmt::format("v{}.{}", threads, ext);
        testing::ShellResult r = RunShell(fmt::format(
            "{} word2vec train --arch {} --dim 16 --min-count 1 --epochs 2 --deterministic --threads {} -o {} {}",
            Tokvec(), arch, threads, out, scratch / "text.txt"));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::string bytes = testing::ReadWhole(out);
        if (first.empty()) {
          first = bytes;
        } else {
          EXPECT_TRUE(bytes == first) << arch << " ." << ext << ": --threads " << threads << " differs from 1";
        }
      }
    }
  }
}

TEST(Word2VecCommandTest, TokenVectorsStartAModelsTokenTable) {
  ScratchDir scratch;
  const std::string tokenizer = ModelTestdata() + "/hf_gpt2_f32/vocab.json";
  testing::ShellResult r = RunShell(fmt::format(
      "{} word2vec train --tokenizer {} --dim 32 --min-count 2 --epochs 1 -o {} {}/data/corpus.txt", Tokvec(),
      tokenizer, scratch / "tokens.vec", TOKVEC_SOURCE_DIR));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto vectors = word2vec::ReadVectors(scratch / "tokens.vec");
  ASSERT_TRUE(vectors.ok()) << vectors.status();
  ASSERT_GT(vectors->size(), 20u);

  // Queries with --tokenizer: a word is the mean of its tokens.
  r = RunShell(fmt::format("{} word2vec similar -v {} --tokenizer {} -k 3 ' the'", Tokvec(), scratch / "tokens.vec",
                           tokenizer));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith(" the\t"));

  r = RunShell(fmt::format("{} init --tokenizer {} --d-model 32 --heads 4 --layers 1 --max-len 16 --seed 1 "
                           "--token-embeddings {} -o {}",
                           Tokvec(), tokenizer, scratch / "tokens.vec", scratch / "m"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "</s>" is not a token; every other row of the file is one.
  EXPECT_THAT(r.err, HasSubstr(fmt::format("token embeddings: {} of 297 tokens got a vector", vectors->size() - 1)));
  auto weights = SafetensorsFile::Open(scratch / "m/model.safetensors");
  ASSERT_TRUE(weights.ok());
  auto wte = (*weights)->ReadFloat32("wte.weight");
  ASSERT_TRUE(wte.ok());
  // Every file vector appears as some wte row, exactly.
  int found = 0;
  for (size_t i = 1; i < vectors->size(); ++i) {
    for (int64_t id = 0; id < 297; ++id) {
      if (std::memcmp(wte->data + id * 32, vectors->row(i), 32 * sizeof(float)) == 0) {
        ++found;
        break;
      }
    }
  }
  EXPECT_EQ(found, static_cast<int>(vectors->size()) - 1);

  r = RunShell(fmt::format("{} init --tokenizer {} --d-model 64 --heads 4 --layers 1 --max-len 16 --seed 1 "
                           "--token-embeddings {} -o {}",
                           Tokvec(), tokenizer, scratch / "tokens.vec", scratch / "m2"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("has 32-dimensional vectors but the model's d_model is 64"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "m2"));
}

}  // namespace
}  // namespace tokvec
