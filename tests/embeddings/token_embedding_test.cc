#include "embeddings/token_embedding.h"

#include <gtest/gtest.h>

#include <vector>

namespace tokvec {
namespace {

TEST(TokenEmbeddingTest, CopiesTheRowOfEachId) {
  Matrix table(4, 3);  // [V=4, D=3], row v = (10v, 10v+1, 10v+2)
  for (int64_t v = 0; v < 4; ++v) {
    for (int64_t d = 0; d < 3; ++d) table.at(v, d) = static_cast<float>(10 * v + d);
  }
  const std::vector<uint32_t> ids = {2, 0, 2, 3};
  absl::StatusOr<Matrix> x = EmbedTokens(table.view(), ids);
  ASSERT_TRUE(x.ok()) << x.status();
  ASSERT_EQ(x->rows(), 4);
  ASSERT_EQ(x->cols(), 3);
  EXPECT_EQ(x->at(0, 0), 20.0f);
  EXPECT_EQ(x->at(1, 2), 2.0f);
  EXPECT_EQ(x->at(2, 1), 21.0f);
  EXPECT_EQ(x->at(3, 2), 32.0f);
}

TEST(TokenEmbeddingTest, EmptyInputGivesEmptyMatrix) {
  Matrix table(4, 3);
  absl::StatusOr<Matrix> x = EmbedTokens(table.view(), {});
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->rows(), 0);
  EXPECT_EQ(x->cols(), 3);
}

TEST(TokenEmbeddingTest, IdOutsideVocabularyIsInvalidArgumentNamingIt) {
  Matrix table(4, 3);
  const std::vector<uint32_t> ids = {1, 4};
  absl::StatusOr<Matrix> x = EmbedTokens(table.view(), ids);
  ASSERT_EQ(x.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(x.status().message());
  EXPECT_NE(message.find("token id 4"), std::string::npos) << message;
  EXPECT_NE(message.find("position 1"), std::string::npos) << message;
  EXPECT_NE(message.find("vocab_size 4"), std::string::npos) << message;
}

}  // namespace
}  // namespace tokvec
