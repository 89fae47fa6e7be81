// `tokvec convert`: tokenizer.json and .tiktoken out of any model; the files keep the ids (tiktoken's goldens,
// or the source model's own ids for a trained model) and nothing is written on an error.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunResult;
using testing::RunTokvec;
using testing::ScratchDir;

std::string SharedVocab(const std::string& name) { return std::string(TOKVEC_SHARED_DIR) + "/vocab/" + name; }

TEST(ConvertCommandTest, TiktokenToBothFormatsKeepsTiktokensIds) {
  if (!std::filesystem::exists(SharedVocab("cl100k_base.tiktoken"))) GTEST_SKIP() << "no shared cl100k_base.tiktoken";
  ScratchDir scratch;
  // The stem must keep the encoding's name: a .tiktoken file names its encoding.
  RunResult r = RunTokvec({"convert", "-m", SharedVocab("cl100k_base.tiktoken"), "-o", scratch / "cl100k_base"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_TRUE(testing::ReadWhole(scratch / "cl100k_base.tiktoken") ==
              testing::ReadWhole(SharedVocab("cl100k_base.tiktoken")));
  nlohmann::json goldens = nlohmann::json::parse(
      testing::ReadWhole(std::string(TOKVEC_SOURCE_DIR) + "/tests/data/tiktoken_goldens.json"));
  // Single-line cases, one `encode --lines` run per model (loading the 3 MB tokenizer.json takes a while).
  std::string input;
  std::string expected;
  int checked = 0;
  for (const auto& golden : goldens["cases"]) {
    const std::string text = golden["text"].get<std::string>();
    if (golden["encoding"] != "cl100k_base" || text.find_first_of("\r\n") != std::string::npos) continue;
    input += text + "\n";
    std::string ids;
    for (const auto& id : golden["ids"]) ids += (ids.empty() ? "" : " ") + std::to_string(id.get<int>());
    expected += ids + "\n";
    ++checked;
  }
  for (const std::string model : {scratch / "cl100k_base.json", scratch / "cl100k_base.tiktoken"}) {
    RunResult encoded = RunTokvec({"encode", "-m", model, "--lines"}, {.stdin_data = input});
    ASSERT_EQ(encoded.exit_code, 0) << encoded.Describe();
    EXPECT_EQ(encoded.out, expected) << model;
  }
  EXPECT_GE(checked, 15);
}

TEST(ConvertCommandTest, TrainedByteModelKeepsItsIdsInBothFormats) {
  ScratchDir scratch;
  std::string text;
  for (int i = 0; i < 50; ++i) text += "the lower newer widest <|end|> low lowest newest wider\n";
  testing::WriteWhole(scratch / "train.txt", text);
  RunResult trained = RunTokvec({"train", "--type", "byte", "--pattern", "cl100k", "--merges", "40", "--special",
                                 "<|end|>", "-o", scratch / "m.tokvec", scratch / "train.txt"});
  ASSERT_EQ(trained.exit_code, 0) << trained.Describe();
  RunResult r = RunTokvec({"convert", "-m", scratch / "m.tokvec", "-o", scratch / "m"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const std::string sample = "the newest lowest <|end|> wider, 12345 widest\n";
  RunResult reference = RunTokvec({"encode", "-m", scratch / "m.tokvec", "--allow-special"}, {.stdin_data = sample});
  ASSERT_EQ(reference.exit_code, 0) << reference.Describe();
  RunResult json = RunTokvec({"encode", "-m", scratch / "m.json", "--allow-special"}, {.stdin_data = sample});
  EXPECT_EQ(json.out, reference.out) << json.Describe();
  // The .tiktoken file holds the ranks only: its split pattern is given, and special tokens are not in it.
  RunResult ranks = RunTokvec({"encode", "-m", scratch / "m.tiktoken", "--pattern", "cl100k"},
                              {.stdin_data = "the newest lowest wider, 12345 widest\n"});
  RunResult ranks_reference =
      RunTokvec({"encode", "-m", scratch / "m.tokvec"}, {.stdin_data = "the newest lowest wider, 12345 widest\n"});
  EXPECT_EQ(ranks.out, ranks_reference.out) << ranks.Describe();
}

TEST(ConvertCommandTest, OutputExtensionPicksOneFormat) {
  if (!std::filesystem::exists(SharedVocab("gpt2.tiktoken"))) GTEST_SKIP() << "no shared gpt2.tiktoken";
  ScratchDir scratch;
  RunResult r = RunTokvec({"convert", "-m", SharedVocab("gpt2.tiktoken"), "-o", scratch / "out.json"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_TRUE(std::filesystem::exists(scratch / "out.json"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "out.tiktoken"));
}

TEST(ConvertCommandTest, WordModelIsAnErrorAndWritesNothing) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "train.txt", "low lower lowest newer wider\n");
  ASSERT_EQ(RunTokvec({"train", "--type", "word", "--merges", "5", "-o", scratch / "w.tokvec", scratch / "train.txt"})
                .exit_code,
            0);
  RunResult r = RunTokvec({"convert", "-m", scratch / "w.tokvec", "-o", scratch / "w"});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("error: cannot write tokenizer.json"));
  EXPECT_THAT(r.err, HasSubstr("word model"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "w.json"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "w.tiktoken"));
}

TEST(ConvertCommandTest, UnknownTargetIsAUsageError) {
  ScratchDir scratch;
  RunResult r = RunTokvec({"convert", "-m", "x", "-o", scratch / "y", "--to", "onnx"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_THAT(r.err, HasSubstr("--to"));
}

// Hugging Face pre-tokenizers (tests/data/pretok): `inspect` counts vocabulary entries no input reaches, `convert`
// writes the pre-tokenizer back to tokenizer.json (same ids) and refuses .tiktoken, which cannot hold it.
TEST(ConvertCommandTest, HuggingFacePreTokenizersAndUnreachableEntries) {
  const std::string data = std::string(TOKVEC_SOURCE_DIR) + "/tests/data/pretok/";
  RunResult inspect = RunTokvec({"inspect", data + "unreachable.json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.Describe();
  EXPECT_THAT(inspect.out, HasSubstr("unreachable_tokens: 2\n"));
  ScratchDir scratch;
  RunResult both = RunTokvec({"convert", "-m", data + "falcon.json", "-o", scratch / "falcon"});
  EXPECT_EQ(both.exit_code, 1) << both.Describe();
  EXPECT_THAT(both.err, HasSubstr("a .tiktoken file cannot say this model's Hugging Face pre-tokenizer"));
  RunResult json = RunTokvec({"convert", "-m", data + "falcon.json", "-o", scratch / "falcon.json"});
  ASSERT_EQ(json.exit_code, 0) << json.Describe();
  const std::string sample = "price: 12,345.67 x\u00b2y!! ...ok\n";
  RunResult original = RunTokvec({"encode", "-m", data + "falcon.json"}, {.stdin_data = sample});
  RunResult written = RunTokvec({"encode", "-m", scratch / "falcon.json"}, {.stdin_data = sample});
  ASSERT_EQ(original.exit_code, 0) << original.Describe();
  EXPECT_EQ(written.out, original.out);
}

}  // namespace
}  // namespace tokvec
