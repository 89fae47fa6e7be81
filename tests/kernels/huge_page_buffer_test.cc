// HugePageBuffer: every requested float is writable and readable back, the start is 64-byte aligned (2 MB from
// one huge page up), it grows on demand and keeps its storage for smaller requests, and moves hand it over.
#include "kernels/huge_page_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace tokvec {
namespace {

void FillAndCheck(float* data, int64_t size) {
  for (int64_t i = 0; i < size; ++i) data[i] = static_cast<float>(i % 1000);
  for (int64_t i = 0; i < size; i += 4099) ASSERT_EQ(data[i], static_cast<float>(i % 1000)) << "float " << i;
  ASSERT_EQ(data[size - 1], static_cast<float>((size - 1) % 1000));
}

TEST(HugePageBufferTest, SmallAndLargeRequests) {
  HugePageBuffer buffer;
  float* small = buffer.Reserve(1000);  // 4 KB: heap
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  FillAndCheck(small, 1000);
  EXPECT_EQ(buffer.Reserve(500), small) << "a smaller request reuses the storage";

  const int64_t big = 3 * (int64_t{1} << 20) + 7;  // 12 MB + 28 bytes: mapped
  float* large = buffer.Reserve(big);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % (uintptr_t{2} << 20), 0u);
  FillAndCheck(large, big);
  EXPECT_EQ(buffer.Reserve(big - 100), large);

  HugePageBuffer moved = std::move(buffer);
  EXPECT_EQ(moved.Reserve(big), large) << "the move hands the storage over";
  EXPECT_EQ(moved.Reserve(1)[0], 0.0f);
}

}  // namespace
}  // namespace tokvec
