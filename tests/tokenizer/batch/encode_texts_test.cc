// EncodeTexts (tokenizer/batch/encode_texts.h): each text's ids are those of encoding it alone, with or without
// the post-processor's tokens, for any pool; an error stays with its text.
#include "tokenizer/batch/encode_texts.h"

#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

TEST(EncodeTextsTest, EachTextAsAloneForAnyPool) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_bert_f32/tokenizer.json");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::string> corpus = ReadFile(std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt");
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  std::vector<std::string> lines;
  for (size_t at = 0; at < corpus->size();) {
    const size_t end = std::min(corpus->find('\n', at), corpus->size());
    lines.push_back(corpus->substr(at, end - at));
    at = end + 1;
  }
  const std::vector<std::string_view> texts(lines.begin(), lines.end());
  ASSERT_GT(texts.size(), 50u);
  for (bool special : {false, true}) {
    EncodeOptions options;
    options.add_special_tokens = special;
    std::vector<std::vector<TokenId>> alone;
    for (std::string_view text : texts) {
      absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text, options);
      ASSERT_TRUE(encoding.ok()) << encoding.status();
      alone.push_back(encoding->ids);
    }
    for (int threads : {1, 2, 3}) {
      WorkerPool pool(threads);
      const EncodedTexts out = EncodeTexts(**tokenizer, texts, options, threads == 1 ? nullptr : &pool);
      ASSERT_EQ(out.ids.size(), texts.size());
      for (size_t i = 0; i < texts.size(); ++i) {
        ASSERT_TRUE(out.errors[i].ok()) << i << ": " << out.errors[i];
        ASSERT_EQ(out.ids[i], alone[i]) << "text " << i << ", threads " << threads << ", special " << special;
      }
    }
  }
}

TEST(EncodeTextsTest, AnErrorStaysWithItsText) {
  // WordPiece reads UTF-8 text: a text with the byte 0xFF is refused, the others encode.
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_bert_f32/tokenizer.json");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::vector<std::string_view> texts = {"one", "ok \xFF bad", "three"};
  WorkerPool pool(2);
  const EncodedTexts out = EncodeTexts(**tokenizer, texts, {}, &pool);
  EXPECT_TRUE(out.errors[0].ok()) << out.errors[0];
  EXPECT_EQ(out.errors[1].code(), absl::StatusCode::kInvalidArgument) << out.errors[1];
  EXPECT_TRUE(out.errors[2].ok()) << out.errors[2];
  EXPECT_FALSE(out.ids[0].empty());
  EXPECT_FALSE(out.ids[2].empty());
}

}  // namespace
}  // namespace tokvec
