#include "pipeline/pooling.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

Matrix Hidden() {  // [3, 2]
  Matrix m(3, 2);
  const float v[] = {1, -4, 3, 0, 2, 1};
  std::copy(v, v + 6, m.data());
  return m;
}

TEST(PoolingTest, HandComputedPools) {
  Matrix h = Hidden();
  EXPECT_EQ(*PoolVectors(h.view(), Pooling::kMean), (std::vector<float>{2, -1}));
  EXPECT_EQ(*PoolVectors(h.view(), Pooling::kCls), (std::vector<float>{1, -4}));
  EXPECT_EQ(*PoolVectors(h.view(), Pooling::kLast), (std::vector<float>{2, 1}));
  EXPECT_EQ(*PoolVectors(h.view(), Pooling::kMax), (std::vector<float>{3, 1}));
  EXPECT_FALSE(PoolVectors(Matrix(0, 2).view(), Pooling::kMean).ok());
  std::vector<float> v = {3, 4};
  NormalizeL2(v);
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
  EXPECT_THAT(std::string(ParsePooling("avg").status().message()), HasSubstr("'avg'"));
}

TEST(PoolingTest, SentenceTransformersModules) {
  const std::string testdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";
  absl::StatusOr<std::optional<SentenceTransformersPooling>> st =
      LoadSentenceTransformersPooling(testdata + "/hf_roberta_f32");
  ASSERT_TRUE(st.ok()) << st.status();
  ASSERT_TRUE(st->has_value());
  EXPECT_EQ((*st)->pooling, Pooling::kMean);
  EXPECT_TRUE((*st)->normalize);
  st = LoadSentenceTransformersPooling(testdata + "/hf_gpt2_f32");
  ASSERT_TRUE(st.ok());
  EXPECT_FALSE(st->has_value());

  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tokvec_pooling_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "1_Pooling");
  std::ofstream(dir / "modules.json") << R"([{"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"}])";
  std::ofstream(dir / "1_Pooling" / "config.json") << R"({"pooling_mode_mean_sqrt_len_tokens": true})";
  st = LoadSentenceTransformersPooling(dir.string());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.status().message()), HasSubstr("pooling_mode_mean_sqrt_len_tokens"));
  std::ofstream(dir / "1_Pooling" / "config.json") << R"({"pooling_mode_cls_token": true})";
  st = LoadSentenceTransformersPooling(dir.string());
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ((*st)->pooling, Pooling::kCls);
  EXPECT_FALSE((*st)->normalize);
  // A "path" that is no string is an error naming it (nlohmann's value() threw for it).
  std::ofstream(dir / "modules.json") << R"([{"type": "sentence_transformers.models.Pooling", "path": 7}])";
  st = LoadSentenceTransformersPooling(dir.string());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.status().message()), HasSubstr("\"path\" is not a string"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tokvec
