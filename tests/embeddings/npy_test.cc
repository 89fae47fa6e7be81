// The .npy layout, checked against the format specification's own description (numpy.lib.format, version 1.0).
#include "embeddings/npy.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

TEST(NpyTest, HeaderMatchesNumpyFormatVersion1) {
  std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f};
  const std::string bytes = NpyFloat32(v.data(), {2, 3});
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], '\x01');
  EXPECT_EQ(bytes[7], '\x00');
  const size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u) << "data must start on a 64-byte boundary";
  const std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,), }", 0), 0u) << header;
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(bytes.size(), 10 + header_len + v.size() * 4);
  std::vector<float> back(v.size());
  std::memcpy(back.data(), bytes.data() + 10 + header_len, v.size() * 4);
  EXPECT_EQ(back, v);
}

TEST(NpyTest, OneDimensionalShapeHasTrailingComma) {
  std::vector<float> v = {1, 2, 3};
  const std::string bytes = NpyFloat32(v.data(), {3});
  EXPECT_NE(bytes.find("'shape': (3, )"), std::string::npos);
}

}  // namespace
}  // namespace tokvec
