// QueryVector and Normalize (word2vec/query_vector.h) on hand-made vectors: a word's own row, the mean of its
// tokens' rows (GPT-2 spells "Hello world" as `Hello` `Ġworld`), and the errors' messages.
#include "word2vec/query_vector.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec::word2vec {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;

Vectors Toy() {
  Vectors v;
  v.dim = 2;
  v.words = {"Hello", "Ġworld", "cat"};
  v.values = {3, 4,   // length 5: unit row (0.6, 0.8)
              0, 2,   // unit row (0, 1)
              -1, 0};
  return v;
}

TEST(QueryVectorTest, AWordIsItsUnitRow) {
  UnitVectors unit(Toy());
  std::vector<int64_t> rows = {7};
  absl::StatusOr<std::vector<float>> query = QueryVector(unit, nullptr, "Hello", "toy.txt", &rows);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_THAT(*query, ElementsAre(FloatNear(0.6f, 1e-6f), FloatNear(0.8f, 1e-6f)));
  EXPECT_THAT(rows, ElementsAre(7, 0));  // appended
  absl::StatusOr<std::vector<float>> missing = QueryVector(unit, nullptr, "dog", "toy.txt", &rows);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "'dog' is not a word of 'toy.txt'");
}

TEST(QueryVectorTest, WithATokenizerAWordIsTheMeanOfItsTokensRows) {
  const std::string path = std::string(TOKVEC_SHARED_DIR) + "/vocab/gpt2.tiktoken";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found (the shared data)";
  absl::StatusOr<std::unique_ptr<Tokenizer>> gpt2 = Tokenizer::Load(path);
  ASSERT_TRUE(gpt2.ok()) << gpt2.status();
  UnitVectors unit(Toy());
  std::vector<int64_t> rows;
  absl::StatusOr<std::vector<float>> query = QueryVector(unit, gpt2->get(), "Hello world", "toy.txt", &rows);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_THAT(*query, ElementsAre(FloatNear(0.3f, 1e-6f), FloatNear(0.9f, 1e-6f)));  // not normalised
  EXPECT_THAT(rows, ElementsAre(0, 1));
  absl::StatusOr<std::vector<float>> missing = QueryVector(unit, gpt2->get(), "Hello dog", "toy.txt", &rows);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "token 'Ġdog' of 'Hello dog' has no vector in 'toy.txt'");
  absl::StatusOr<std::vector<float>> empty = QueryVector(unit, gpt2->get(), "", "toy.txt", &rows);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(), "'' encodes to no token");
}

TEST(QueryVectorTest, NormalizeScalesToLengthOneAndKeepsZero) {
  std::vector<float> v = {3, 4};
  Normalize(v);
  EXPECT_THAT(v, ElementsAre(FloatNear(0.6f, 1e-6f), FloatNear(0.8f, 1e-6f)));
  std::vector<float> zero = {0, 0};
  Normalize(zero);
  EXPECT_THAT(zero, ElementsAre(0.0f, 0.0f));
}

}  // namespace
}  // namespace tokvec::word2vec
