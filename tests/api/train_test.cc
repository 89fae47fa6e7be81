// The public trainer (include/tokvec/train.h) learns the vocabulary the library's TokenizerTrainer learns (what
// `tokvec train` runs): the saved files are the same bytes, from files and from texts in memory.
#include "tokvec/train.h"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/api/api_testutil.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/trainers/tokenizer_trainer.h"

namespace tokvec::api {
namespace {

using ::testing::HasSubstr;

const std::string kCorpus = std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt";

// What Tokenizer::Save wrote.
std::string Saved(const Tokenizer& tokenizer) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "api_trained.tokvec").string();
  EXPECT_TRUE(tokenizer.Save(path).ok());
  absl::StatusOr<std::string> bytes = ReadFile(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  std::filesystem::remove(path);
  return bytes.ok() ? *bytes : "";
}

// The library's model file for the same run: `count` adds the text to the trainer.
template <typename Count>
std::string LibraryModel(tokvec::TokenizerTrainerOptions options, Count count) {
  absl::StatusOr<tokvec::TokenizerTrainer> trainer = tokvec::TokenizerTrainer::Create(std::move(options));
  EXPECT_TRUE(trainer.ok()) << trainer.status();
  if (!trainer.ok()) return "";
  EXPECT_TRUE(count(*trainer).ok());
  absl::StatusOr<std::unique_ptr<tokvec::Tokenizer>> trained = std::move(*trainer).Train();
  EXPECT_TRUE(trained.ok()) << trained.status();
  return trained.ok() ? WriteTokvecModel(**trained) : "";
}

TEST(ApiTrainTest, FilesGiveTheLibrarysModel) {
  const TrainOptions options{.type = ModelType::kByte, .vocab_size = 600, .pattern = "cl100k_base",
                             .special_tokens = {"<|endoftext|>"}, .threads = 2};
  absl::StatusOr<Tokenizer> trained = TrainTokenizer({kCorpus}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_EQ(trained->vocab_size(), 600u);
  EXPECT_EQ(Saved(*trained), LibraryModel({.type = tokvec::ModelType::kByte,
                                           .pattern = "cl100k_base",
                                           .vocab_size = 600,
                                           .special_tokens = {"<|endoftext|>"},
                                           .threads = 2},
                                          [](tokvec::TokenizerTrainer& t) { return t.CountFiles({kCorpus}); }));
  absl::StatusOr<Encoding> special = trained->Encode("<|endoftext|>", {.allow_all_special = true});
  ASSERT_TRUE(special.ok()) << special.status();
  EXPECT_EQ(special->ids, (std::vector<uint32_t>{0}));  // special tokens take the first ids
}

TEST(ApiTrainTest, TextsGiveTheLibrarysModel) {
  const std::vector<std::string> owned = RealTexts();
  const std::vector<std::string_view> texts(owned.begin(), owned.end());
  const TrainOptions options{.type = ModelType::kWord, .merges = 300, .normalize = "nfkc", .min_frequency = 2};
  absl::StatusOr<Tokenizer> trained = TrainTokenizerFromTexts(texts, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_EQ(trained->type(), ModelType::kWord);
  EXPECT_EQ(Saved(*trained), LibraryModel({.type = tokvec::ModelType::kWord,
                                           .normalize = "nfkc",
                                           .merges = 300,
                                           .min_frequency = 2},
                                          [&](tokvec::TokenizerTrainer& t) {
                                            for (size_t i = 0; i < texts.size(); ++i) {
                                              absl::Status s = t.CountText(texts[i], "text");
                                              if (!s.ok()) return s;
                                            }
                                            return absl::OkStatus();
                                          }));
}

TEST(ApiTrainTest, ErrorsAreStatuses) {
  absl::StatusOr<Tokenizer> both = TrainTokenizer({kCorpus}, {.vocab_size = 500, .merges = 10});
  EXPECT_EQ(both.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(both.status().message(), HasSubstr("exactly one of a number of merges and a vocabulary size"));
  absl::StatusOr<Tokenizer> wordpiece = TrainTokenizer({kCorpus}, {.type = ModelType::kWordPiece, .merges = 10});
  EXPECT_EQ(wordpiece.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wordpiece.status().message(), HasSubstr("kByte or kWord"));
  absl::StatusOr<Tokenizer> missing = TrainTokenizer({"no_such_corpus.txt"}, {.merges = 10});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_corpus.txt"));
  const std::vector<std::string_view> invalid = {"fine", "bad \xFF byte"};
  absl::StatusOr<Tokenizer> word = TrainTokenizerFromTexts(invalid, {.type = ModelType::kWord, .merges = 10});
  ASSERT_FALSE(word.ok());
  EXPECT_THAT(word.status().message(), HasSubstr("text 2"));
}

}  // namespace
}  // namespace tokvec::api
