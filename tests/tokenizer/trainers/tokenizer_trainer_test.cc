// TokenizerTrainer: the published seed walk-through, counts from memory equal counts from a file, and the
// option checks.
#include "tokenizer/trainers/tokenizer_trainer.h"

#include <cstdio>
#include <string>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tokenizer/formats/formats.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

// Sennrich et al.'s walk-through: "low lower newest wider", 4 merges -> e r, er </w>, l o, lo w; the merged
// tokens take the last four ids.
TEST(TokenizerTrainerTest, SeedWalkThrough) {
  absl::StatusOr<TokenizerTrainer> trainer = TokenizerTrainer::Create({.type = ModelType::kWord, .merges = 4});
  ASSERT_TRUE(trainer.ok()) << trainer.status();
  ASSERT_TRUE(trainer->CountText("low lower newest wider", "seed").ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = std::move(*trainer).Train();
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const size_t n = (*tokenizer)->vocab_size();
  std::vector<std::string> last;
  for (size_t id = n - 4; id < n; ++id) last.push_back((*tokenizer)->TokenSpelling(static_cast<TokenId>(id)));
  EXPECT_EQ(last, (std::vector<std::string>{"er", "er</w>", "lo", "low"}));
}

// Texts counted one by one (each ending in a newline) give the model the file of their concatenation gives.
TEST(TokenizerTrainerTest, TextsEqualTheirFile) {
  const std::vector<std::string> texts = {"the cat sat on the mat\n", "the dog sat on the log\n",
                                          "catalogue of dogs and cats\n", "über straße\n"};
  std::string joined;
  for (const std::string& t : texts) joined += t;
  const std::string path = ::testing::TempDir() + "/tokenizer_trainer_test.txt";
  ASSERT_TRUE(WriteFileAtomically(path, joined).ok());
  TokenizerTrainerOptions options{.type = ModelType::kByte, .vocab_size = 290, .special_tokens = {"<|eot|>"}};
  absl::StatusOr<TokenizerTrainer> from_file = TokenizerTrainer::Create(options);
  absl::StatusOr<TokenizerTrainer> from_texts = TokenizerTrainer::Create(options);
  ASSERT_TRUE(from_file.ok() && from_texts.ok());
  ASSERT_TRUE(from_file->CountFiles({path}).ok());
  for (const std::string& t : texts) ASSERT_TRUE(from_texts->CountText(t, "text").ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> a = std::move(*from_file).Train();
  absl::StatusOr<std::unique_ptr<Tokenizer>> b = std::move(*from_texts).Train();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(WriteTokvecModel(**a), WriteTokvecModel(**b));
  EXPECT_EQ((*a)->vocab_size(), 290u);
  std::remove(path.c_str());
}

TEST(TokenizerTrainerTest, OptionErrors) {
  absl::StatusOr<TokenizerTrainer> t = TokenizerTrainer::Create({.type = ModelType::kWord, .pattern = "gpt2", .merges = 1});
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("byte models only"));
  t = TokenizerTrainer::Create({.type = ModelType::kByte});
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("exactly one"));
  t = TokenizerTrainer::Create({.type = ModelType::kByte, .normalize = "nope", .merges = 1});
  EXPECT_FALSE(t.ok());
  t = TokenizerTrainer::Create({.type = ModelType::kWord, .merges = 1});
  ASSERT_TRUE(t.ok());
  absl::Status bad = t->CountText("caf\xC3 x", "item 3");  // invalid UTF-8 in a word model
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.message()), HasSubstr("item 3"));
}

}  // namespace
}  // namespace tokvec
