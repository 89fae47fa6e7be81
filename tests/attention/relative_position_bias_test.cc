// MPNet's relative position buckets against the torch reference's (scripts/gen_hf_checkpoints.py mpnet_bucket,
// -300..300), and the bias block a head adds to its scores.
#include "attention/relative_position_bias.h"

#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

TEST(RelativePositionBiasTest, BucketsMatchTorch) {
  nlohmann::json reference = nlohmann::json::parse(
      *ReadFile(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_mpnet_reference.json"));
  const std::vector<int64_t> relative = reference["relative_positions"].get<std::vector<int64_t>>();
  const std::vector<int64_t> buckets = reference["buckets"].get<std::vector<int64_t>>();
  ASSERT_EQ(relative.size(), buckets.size());
  ASSERT_GT(relative.size(), 500u);
  for (size_t i = 0; i < relative.size(); ++i) {
    EXPECT_EQ(RelativePositionBucket(relative[i]), buckets[i]) << "relative position " << relative[i];
  }
  // Keys before the query (and the query itself) in 0..15, keys after it in 16..31.
  EXPECT_EQ(RelativePositionBucket(0), 0);
  EXPECT_EQ(RelativePositionBucket(-1), 1);
  EXPECT_EQ(RelativePositionBucket(1), 17);
  EXPECT_EQ(RelativePositionBucket(-1000), 15);
  EXPECT_EQ(RelativePositionBucket(1000), 31);
}

TEST(RelativePositionBiasTest, FillHeadReadsTheBucketOfKeyMinusQuery) {
  Matrix weight(kRelativeBuckets, 2);  // [32, H = 2]: bucket b, head h -> 100 h + b
  for (int64_t b = 0; b < kRelativeBuckets; ++b) {
    for (int64_t h = 0; h < 2; ++h) weight.at(b, h) = static_cast<float>(100 * h + b);
  }
  absl::StatusOr<RelativePositionBias> bias = RelativePositionBias::Make(weight.view(), 40);
  ASSERT_TRUE(bias.ok()) << bias.status();
  const int64_t len = 37;
  std::vector<float> block(static_cast<size_t>(len * len));
  bias->FillHead(1, len, block.data());
  for (int64_t i = 0; i < len; ++i) {
    for (int64_t j = 0; j < len; ++j) {
      ASSERT_EQ(block[static_cast<size_t>(i * len + j)], 100.0f + static_cast<float>(RelativePositionBucket(j - i)))
          << i << " " << j;
    }
  }
  Matrix too_few(16, 2);
  EXPECT_THAT(std::string(RelativePositionBias::Make(too_few.view(), 40).status().message()),
              ::testing::HasSubstr("at least 32 buckets"));
}

}  // namespace
}  // namespace tokvec
