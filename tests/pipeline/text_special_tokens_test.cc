// TextSpecialTokensFor: a tokenizer.json's post-processor first, else the architecture's convention.
#include "pipeline/text_special_tokens.h"

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::unique_ptr<Tokenizer> LoadAdded(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/data/added/" + name);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

TEST(TextSpecialTokensTest, PostProcessorWinsOverTheArchitecture) {
  std::unique_ptr<Tokenizer> tokenizer = LoadAdded("wordpiece-added.json");  // Template [CLS] $A [SEP]
  ASSERT_NE(tokenizer, nullptr);
  ModelConfig gpt2;
  const TextSpecialTokens around = TextSpecialTokensFor(*tokenizer, gpt2).value();
  EXPECT_EQ(around.before, std::vector<uint32_t>{*tokenizer->FindSpecial("[CLS]")});
  EXPECT_EQ(around.after, std::vector<uint32_t>{*tokenizer->FindSpecial("[SEP]")});
}

TEST(TextSpecialTokensTest, ArchitectureConventionWithoutPostProcessor) {
  // wordpiece-added.json with "post_processor": null, in a file of this test's own.
  absl::StatusOr<std::string> text = ReadFile(std::string(TOKVEC_SOURCE_DIR) + "/tests/data/added/wordpiece-added.json");
  ASSERT_TRUE(text.ok()) << text.status();
  nlohmann::json json = nlohmann::json::parse(*text);
  json["post_processor"] = nullptr;
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("tokvec-text-special-" + std::to_string(::getpid()) + ".json");
  ASSERT_TRUE(WriteFileAtomically(path.string(), json.dump()).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  ASSERT_EQ((*tokenizer)->spec().post_processor, nullptr);
  ModelConfig roberta;
  roberta.arch = Architecture::kRoberta;
  roberta.bos_token_id = 0;
  roberta.eos_token_id = 2;
  const TextSpecialTokens around = TextSpecialTokensFor(**tokenizer, roberta).value();
  EXPECT_EQ(around.before, std::vector<uint32_t>{0});
  EXPECT_EQ(around.after, std::vector<uint32_t>{2});
  ModelConfig gpt2;
  EXPECT_TRUE(TextSpecialTokensFor(**tokenizer, gpt2)->before.empty());
  EXPECT_TRUE(TextSpecialTokensFor(**tokenizer, gpt2)->after.empty());
}

}  // namespace
}  // namespace tokvec
