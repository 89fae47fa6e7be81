// The public Model (include/tokvec/embed.h) gives the bits of the library's EmbedTexts (what `tokvec embed` runs)
// on the committed Hugging Face models, for each pooling; its tokenizer and Tokenize are the directory's; errors
// come back as statuses naming the text.
#include "tokvec/embed.h"

#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "tests/api/api_testutil.h"

namespace tokvec::api {
namespace {

using ::testing::HasSubstr;

// The texts PyTorch embedded for the committed reference of `model` (e.g. "hf_roberta").
std::vector<std::string> ReferenceTexts(const std::string& model) {
  absl::StatusOr<std::string> json = ReadFile(TestdataPath(model + "_reference.json"));
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? nlohmann::json::parse(*json)["texts"].get<std::vector<std::string>>() : std::vector<std::string>{};
}

// Embeds `texts` through the public Model and through the library with the same choices; every float must be equal.
void ExpectSameAsLibrary(const std::string& dir, const std::vector<std::string>& texts, const EmbedOptions& options,
                         std::string_view library_pooling) {
  SCOPED_TRACE(dir + " pooling " + std::string(library_pooling));
  absl::StatusOr<Model> model = Model::Load(TestdataPath(dir));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::vector<TextVectors>> got = model->Embed(texts, options);
  ASSERT_TRUE(got.ok()) << got.status();

  absl::StatusOr<tokvec::ModelDirectory> library = tokvec::ModelDirectory::Load(TestdataPath(dir));
  ASSERT_TRUE(library.ok()) << library.status();
  absl::StatusOr<tokvec::PoolingChoice> choice = tokvec::ChoosePooling(*library, library_pooling, options.normalize);
  ASSERT_TRUE(choice.ok()) << choice.status();
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  absl::StatusOr<std::vector<tokvec::TextVectors>> expected =
      tokvec::EmbedTexts(*library, views,
                         {.pooling = choice->pooling,
                          .normalize = choice->normalize,
                          .threads = options.threads,
                          .batch_sequences = options.batch_sequences});
  ASSERT_TRUE(expected.ok()) << expected.status();

  ASSERT_EQ(got->size(), expected->size());
  for (size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE(texts[i]);
    const TextVectors& v = (*got)[i];
    const tokvec::Matrix& e = (*expected)[i].vectors;  // [rows, D]
    EXPECT_EQ(v.ids, (*expected)[i].ids);
    EXPECT_EQ(v.tokens, (*expected)[i].tokens);
    ASSERT_EQ(v.rows, static_cast<size_t>(e.rows()));
    ASSERT_EQ(v.cols, static_cast<size_t>(e.cols()));
    ASSERT_EQ(v.cols, model->d_model());
    EXPECT_EQ(v.values, std::vector<float>(e.data(), e.data() + e.rows() * e.cols()));
    for (size_t r = 0; r < v.rows; ++r) EXPECT_EQ(v.Row(r).data(), v.values.data() + r * v.cols);
  }
}

TEST(ApiModelTest, EmbedsAsTheLibrary) {
  const std::vector<std::string> roberta = ReferenceTexts("hf_roberta");
  ExpectSameAsLibrary("hf_roberta_f32", roberta, {}, "auto");  // its modules.json: mean, then Normalize
  ExpectSameAsLibrary("hf_roberta_f32", roberta, {.pooling = Pooling::kCls}, "cls");
  const std::vector<std::string> gpt2 = ReferenceTexts("hf_gpt2");
  ExpectSameAsLibrary("hf_gpt2_f32", gpt2, {.pooling = Pooling::kMean, .normalize = true}, "mean");
  ExpectSameAsLibrary("hf_gpt2_f32", gpt2, {.pooling = Pooling::kLast}, "last");
  ExpectSameAsLibrary("hf_gpt2_f32", gpt2, {.pooling = Pooling::kNone}, "none");
  const std::vector<std::string> bert = ReferenceTexts("hf_bert");
  ExpectSameAsLibrary("hf_bert_f32", bert, {.pooling = Pooling::kMax, .threads = 2, .batch_sequences = 1}, "max");
  ExpectSameAsLibrary("hf_llama_f32", ReferenceTexts("hf_llama"), {.pooling = Pooling::kMean, .threads = 2}, "mean");
}

TEST(ApiModelTest, PerTokenVectorsHaveOneRowPerToken) {
  absl::StatusOr<Model> model = Model::Load(TestdataPath("hf_gpt2_f32"));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::vector<TextVectors>> out = model->Embed({"a cat sat"}, {.pooling = Pooling::kAuto});
  ASSERT_TRUE(out.ok()) << out.status();
  const TextVectors& v = (*out)[0];
  EXPECT_EQ(v.rows, v.ids.size());  // no modules.json: auto is none
  EXPECT_EQ(v.values.size(), v.rows * v.cols);
}

TEST(ApiModelTest, TokenizerAndTokenizeAreTheDirectorys) {
  absl::StatusOr<tokvec::ModelDirectory> library = tokvec::ModelDirectory::Load(TestdataPath("hf_roberta_f32"));
  ASSERT_TRUE(library.ok()) << library.status();
  const std::string text = "Your cat is a lovely cat";
  absl::StatusOr<Tokenizer> tokenizer = absl::UnknownError("not taken");
  {
    absl::StatusOr<Model> model = Model::Load(TestdataPath("hf_roberta_f32"));
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<std::vector<uint32_t>> ids = model->Tokenize(text);
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ(*ids, *library->Tokenize(text));  // <s> ... </s>
    tokenizer = model->tokenizer();
  }  // the Model is gone; its Tokenizer keeps the directory alive
  ASSERT_TRUE(tokenizer.ok());
  for (const std::string& real : RealTexts()) {
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(real);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(encoding->ids, library->tokenizer().Encode(real)->ids);
  }
  EXPECT_EQ(tokenizer->vocab_size(), library->tokenizer().vocab_size());
}

TEST(ApiModelTest, SizesAreTheConfigs) {
  absl::StatusOr<Model> model = Model::Load(TestdataPath("hf_gpt2_f32"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->d_model(), 32u);  // n_embd
  EXPECT_EQ(model->max_len(), 48u);  // n_positions
}

TEST(ApiModelTest, ErrorsAreStatuses) {
  absl::StatusOr<Model> missing = Model::Load(TestdataPath("no_such_model"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_model"));

  absl::StatusOr<Model> model = Model::Load(TestdataPath("hf_gpt2_f32"));
  ASSERT_TRUE(model.ok()) << model.status();
  const std::string long_text(4000, 'a');  // far more than 48 tokens
  absl::StatusOr<std::vector<TextVectors>> too_long = model->Embed({"a cat", long_text}, {.pooling = Pooling::kMean});
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(too_long.status().message(), HasSubstr("text 2: "));
  EXPECT_THAT(too_long.status().message(), HasSubstr("longer than the model's maximum of 48"));
  absl::StatusOr<std::vector<TextVectors>> windowed =
      model->Embed({long_text}, {.pooling = Pooling::kMean, .window = 32, .stride = 16});
  EXPECT_TRUE(windowed.ok()) << windowed.status();

  absl::StatusOr<std::vector<TextVectors>> no_threads = model->Embed({"a"}, {.threads = 0});
  EXPECT_EQ(no_threads.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_threads.status().message(), HasSubstr("threads must be at least 1, not 0"));
  absl::StatusOr<std::vector<TextVectors>> negative = model->Embed({"a"}, {.window = -1});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tokvec::api
