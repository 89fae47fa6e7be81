// A test fixture reading tests/data/training/ (scripts/gen_training_goldens.py): a golden safetensors file, its
// tensors as float vectors and its __metadata__ values as numbers.
#ifndef TOKVEC_TESTS_TRAINING_GOLDEN_TESTUTIL_H_
#define TOKVEC_TESTS_TRAINING_GOLDEN_TESTUTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "embeddings/safetensors.h"
#include "gtest/gtest.h"

namespace tokvec::training {

inline const std::string kGoldenDir = std::string(TOKVEC_SOURCE_DIR) + "/tests/data/training";

class GoldenTest : public ::testing::Test {
 public:  // also for helpers outside the fixture
  // Opens kGoldenDir/name; call with ASSERT_NO_FATAL_FAILURE from SetUp.
  void OpenGolden(const std::string& name) {
    auto golden = SafetensorsFile::Open(kGoldenDir + "/" + name);
    ASSERT_TRUE(golden.ok()) << golden.status();
    golden_ = std::move(*golden);
  }
  double Meta(const std::string& key) { return std::stod(golden_->metadata().at(key)); }
  std::vector<float> Tensor(const std::string& name) {
    auto t = golden_->ReadFloat32(name);
    EXPECT_TRUE(t.ok()) << t.status();
    if (!t.ok()) return {};
    return std::vector<float>(t->data, t->data + t->num_elements());
  }

 protected:
  std::unique_ptr<SafetensorsFile> golden_;
};

}  // namespace tokvec::training

#endif  // TOKVEC_TESTS_TRAINING_GOLDEN_TESTUTIL_H_
