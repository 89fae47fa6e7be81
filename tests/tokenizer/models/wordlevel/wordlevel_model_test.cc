// WordLevel (tokenizer/models/wordlevel/): each pre-tokenizer piece is one token looked up whole, the unk token for
// a word outside the vocabulary, and an error naming the word when the unk token is not in the vocabulary either
// (Hugging Face's WordLevel: tokenizers/src/models/wordlevel/). `make conformance` compares the files of
// tests/data/legacy/*wordlevel* with Hugging Face itself.
#include "tokenizer/models/wordlevel/wordlevel_model.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A tokenizer.json around a WordLevel `model` object, with `pre_tokenizer`.
std::string File(const std::string& model, const std::string& pre_tokenizer = R"({"type": "WhitespaceSplit"})") {
  return R"({"version": "1.0", "added_tokens": [], "normalizer": null, "pre_tokenizer": )" + pre_tokenizer +
         R"(, "post_processor": null, "decoder": null, "model": )" + model + "}";
}

absl::StatusOr<std::unique_ptr<Tokenizer>> FromText(const std::string& text) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(text, "wl.json");
  if (!spec.ok()) return spec.status();
  return Tokenizer::Create(std::move(*spec));
}

TEST(WordLevelModelTest, CreateKeepsGapsAndRefusesAmbiguousVocabularies) {
  absl::StatusOr<WordLevelModel> model = WordLevelModel::Create({{"<unk>", 0}, {"cat", 2}}, "<unk>");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->size(), 3u);
  EXPECT_TRUE(model->token(1).empty());  // a gap
  EXPECT_EQ(model->Lookup("cat"), 2u);
  EXPECT_EQ(model->Lookup("dog"), 0u);
  EXPECT_EQ(model->Find("dog"), std::nullopt);
  absl::StatusOr<WordLevelModel> no_unk = WordLevelModel::Create({{"cat", 0}}, "<unk>");
  ASSERT_TRUE(no_unk.ok());
  EXPECT_EQ(no_unk->Lookup("dog"), std::nullopt);
  EXPECT_THAT(WordLevelModel::Create({{"a", 0}, {"b", 0}}, "a").status().message(), HasSubstr("id 0 is given to two"));
  EXPECT_THAT(WordLevelModel::Create({{"a", 0}, {"a", 1}}, "a").status().message(), HasSubstr("given twice"));
  EXPECT_THAT(WordLevelModel::Create({{"", 0}}, "a").status().message(), HasSubstr("empty spelling"));
  EXPECT_THAT(WordLevelModel::Create({}, "a").status().message(), HasSubstr("empty"));
  EXPECT_THAT(WordLevelModel::Create({{"a", 1u << 30}}, "a").status().message(), HasSubstr("far beyond"));
}

TEST(WordLevelModelTest, EachWordIsOneTokenOverTheWholeWord) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      FromText(File(R"({"type": "WordLevel", "vocab": {"[UNK]": 0, "the": 1, "cat": 2, "sat.": 4},
                        "unk_token": "[UNK]"})"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_EQ((*tokenizer)->type(), ModelType::kWordLevel);
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode("the cat  sat. caterpillar");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  EXPECT_THAT(encoding->ids, ElementsAre(1, 2, 4, 0));
  ASSERT_EQ(encoding->offsets.size(), 4u);
  EXPECT_EQ(encoding->offsets[2].begin, 9u);
  EXPECT_EQ(encoding->offsets[2].end, 13u);
  EXPECT_EQ(encoding->offsets[3].begin, 14u);  // the unk token covers the whole word
  EXPECT_EQ(encoding->offsets[3].end, 25u);
  // No decoder: spellings joined by spaces (Hugging Face's default).
  absl::StatusOr<std::string> text = (*tokenizer)->Decode({1, 2, 4, 0});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "the cat sat. [UNK]");
  EXPECT_FALSE((*tokenizer)->Decode({3}).ok());  // a gap
  // A code-point model: bytes that are not UTF-8 are refused, naming the model.
  absl::StatusOr<Encoding> bad = (*tokenizer)->Encode("the \xFF");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("WordLevel"));
}

TEST(WordLevelModelTest, AWordWithoutTokenOrUnkIsAnErrorNamingIt) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      FromText(File(R"({"type": "WordLevel", "vocab": {"the": 0, "cat": 1}, "unk_token": "<unk>"})"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> known = (*tokenizer)->Encode("the cat");
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_THAT(known->ids, ElementsAre(0, 1));
  absl::StatusOr<Encoding> unknown = (*tokenizer)->Encode("the dog");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("'dog'"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("'<unk>'"));
}

TEST(WordLevelModelTest, FileShapes) {
  // Without "type", vocab and unk_token make a WordLevel model (Hugging Face's order: after BPE and WordPiece).
  absl::StatusOr<std::unique_ptr<Tokenizer>> untyped =
      FromText(File(R"({"vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"})"));
  ASSERT_TRUE(untyped.ok()) << untyped.status();
  EXPECT_EQ((*untyped)->type(), ModelType::kWordLevel);
  // No pre_tokenizer: the whole text is one word.
  absl::StatusOr<std::unique_ptr<Tokenizer>> whole =
      FromText(File(R"({"type": "WordLevel", "vocab": {"a b": 0, "[UNK]": 1}, "unk_token": "[UNK]"})", "null"));
  ASSERT_TRUE(whole.ok()) << whole.status();
  absl::StatusOr<Encoding> encoding = (*whole)->Encode("a b");
  ASSERT_TRUE(encoding.ok());
  EXPECT_THAT(encoding->ids, ElementsAre(0));
  // unk_token is required, as in Hugging Face ("missing field `unk_token`").
  absl::StatusOr<std::unique_ptr<Tokenizer>> no_unk = FromText(File(R"({"type": "WordLevel", "vocab": {"a": 0}})"));
  ASSERT_FALSE(no_unk.ok());
  EXPECT_THAT(no_unk.status().message(), HasSubstr("model.unk_token"));
  absl::StatusOr<std::unique_ptr<Tokenizer>> bad_unk =
      FromText(File(R"({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": 3})"));
  ASSERT_FALSE(bad_unk.ok());
  EXPECT_THAT(bad_unk.status().message(), HasSubstr("model.unk_token"));
  absl::StatusOr<std::unique_ptr<Tokenizer>> twice =
      FromText(File(R"({"type": "WordLevel", "vocab": {"a": 0, "b": 0}, "unk_token": "a"})"));
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("model.vocab"));
}

}  // namespace
}  // namespace tokvec
