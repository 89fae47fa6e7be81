// Quantized embeddings against values worked out by hand from sentence-transformers' definitions, and NumPy's
// float32 -> int8/uint8 casts as NumPy 1.24 on x86-64 prints them (np.array([300.7, -1.5, ...]).astype(np.uint8)).
#include "retrieval/quantize.h"

#include <cmath>
#include <string>
#include <vector>

#include "embeddings/npy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(QuantizeTest, BinaryPacksSignBitsHighFirst) {
  // 10 dimensions: two bytes, the second padded with zero bits.
  const std::vector<float> v = {1, -1, 0, 2, 0.5f, -3, 1, 1, /**/ 4, -0.0f};
  auto ubinary = Quantize({v.data(), 1, 10}, Precision::kUbinary, nullptr);
  ASSERT_TRUE(ubinary.ok()) << ubinary.status();
  EXPECT_EQ(ubinary->cols, 2);
  EXPECT_THAT(ubinary->bytes, ElementsAre(0b10011011, 0b10000000));  // 0 and -0 are not > 0
  auto binary = Quantize({v.data(), 1, 10}, Precision::kBinary, nullptr);
  ASSERT_TRUE(binary.ok());
  // byte - 128 as int8: 155 - 128 = 27, 128 - 128 = 0.
  EXPECT_THAT(binary->bytes, ElementsAre(27, 0));
  EXPECT_THAT(QuantizedNpy(*binary), HasSubstr("'descr': '|i1'"));
  EXPECT_THAT(QuantizedNpy(*ubinary), HasSubstr("'descr': '|u1'"));
}

TEST(QuantizeTest, ScalarCodesFollowTheRangesAndNumpysCasts) {
  // Ranges [0, 255]: step 1, so a value's code is the value truncated (as uint8) and the value - 128 (as int8).
  const QuantizationRanges ranges{{0, 0, 0, 0, 0, 0, 0}, {255, 255, 255, 255, 255, 255, 255}};
  const std::vector<float> v = {300.7f, -1.5f, -0.5f, 255.9f, NAN, 3e9f, 127.9f};
  auto u8 = Quantize({v.data(), 1, 7}, Precision::kUint8, &ranges);
  ASSERT_TRUE(u8.ok());
  EXPECT_THAT(u8->bytes, ElementsAre(44, 255, 0, 255, 0, 0, 127));  // NumPy: [ 44 255 0 255 0 0 127]
  auto i8 = Quantize({v.data(), 1, 7}, Precision::kInt8, &ranges);
  ASSERT_TRUE(i8.ok());
  // v - 128: 172.7 -> -84 (172 wraps), -129.5 -> 127, -128.5 -> -128, 127.9 -> 127, NaN -> 0, 3e9 -> 0, -0.1 -> 0.
  EXPECT_THAT(i8->bytes, ElementsAre(static_cast<uint8_t>(-84), 127, static_cast<uint8_t>(-128), 127, 0, 0, 0));
}

TEST(QuantizeTest, RangesComeFromTheRowsThemselves) {
  const std::vector<float> v = {0, 10, /**/ 1, 20, /**/ 0.5f, 15};
  auto ranges = RangesOf({v.data(), 3, 2});
  ASSERT_TRUE(ranges.ok());
  EXPECT_THAT(ranges->lo, ElementsAre(0, 10));
  EXPECT_THAT(ranges->hi, ElementsAre(1, 20));
  auto u8 = Quantize({v.data(), 3, 2}, Precision::kUint8, nullptr);
  ASSERT_TRUE(u8.ok());
  // (x - lo) / ((hi - lo) / 255) in float32: the step 1/255 rounds up, so the top end is 254.99998 -> 254, not
  // 255, and the middle 127.49999 -> 127, as NumPy prints them ([[0 0] [254 254] [127 127]]).
  EXPECT_THAT(u8->bytes, ElementsAre(0, 0, 254, 254, 127, 127));
}

TEST(QuantizeTest, RefusesWhatItCannotDo) {
  const std::vector<float> v = {1, 2};
  EXPECT_FALSE(Quantize({v.data(), 1, 2}, Precision::kFloat32, nullptr).ok());
  const QuantizationRanges three{{0, 0, 0}, {1, 1, 1}};
  EXPECT_THAT(std::string(Quantize({v.data(), 1, 2}, Precision::kInt8, &three).status().message()),
              HasSubstr("3 dimensions"));
  EXPECT_FALSE(Quantize({v.data(), 1, 2}, Precision::kBinary, &three).ok());
  EXPECT_FALSE(ParsePrecision("int4").ok());
  EXPECT_FALSE(RangesOf({v.data(), 0, 2}).ok());
  EXPECT_FALSE(RangesFromMatrix({v.data(), 1, 2}).ok());
}

TEST(QuantizeTest, CodesParseBackAsNpy) {
  const std::vector<float> v = {1, -1, 2, -2, 3, -3};
  auto q = Quantize({v.data(), 2, 3}, Precision::kInt8, nullptr);
  ASSERT_TRUE(q.ok());
  const std::string npy = QuantizedNpy(*q);
  auto view = ParseNpyMatrix(npy);
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->dtype, NpyDtype::kInt8);
  EXPECT_EQ(view->rows, 2);
  EXPECT_EQ(view->cols, 3);
  EXPECT_FALSE(ParseNpyFloat32Matrix(npy).ok());
}

}  // namespace
}  // namespace tokvec
