// The torch references written by scripts/gen_hf_checkpoints.py and scripts/gen_decoder_checkpoints.py beside the
// checkpoints under tests/attention/testdata: hf_<arch>_reference.json.
#ifndef TOKVEC_TESTS_ATTENTION_HF_REFERENCE_TESTUTIL_H_
#define TOKVEC_TESTS_ATTENTION_HF_REFERENCE_TESTUTIL_H_

#include <string>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tokvec::testing {

inline const std::string kHfTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

// hf_<arch>_reference.json parsed; null (and a test failure) when it cannot be read.
inline nlohmann::json LoadHfReference(const std::string& arch) {
  absl::StatusOr<std::string> text = ReadFile(kHfTestdata + "/hf_" + arch + "_reference.json");
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json();
}

}  // namespace tokvec::testing

#endif  // TOKVEC_TESTS_ATTENTION_HF_REFERENCE_TESTUTIL_H_
