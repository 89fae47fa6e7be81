// One shared Model run from several threads at once (each call with its own threads option) gives bit-identical
// hidden states to a single call. (Asking for attention weights takes another kernel, so every call here uses
// the same options apart from the thread count.) Meaningful under ThreadSanitizer (scripts/sanitize.sh thread); in other builds
// it checks that Forward's result does not depend on the thread count or on concurrent callers.
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "models/model.h"

namespace tokvec {
namespace {

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

bool SameBits(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (int64_t t = 0; t < a.rows(); ++t) {
    for (int64_t j = 0; j < a.cols(); ++j) {
      const float x = a.at(t, j), y = b.at(t, j);
      if (std::memcmp(&x, &y, sizeof(float)) != 0) return false;
    }
  }
  return true;
}

class ModelConcurrencyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelConcurrencyTest, SharedModelForwardIsTheSameOnEveryThread) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kTestdata + "/" + GetParam());
  if (!model.ok() && absl::IsNotFound(model.status())) GTEST_SKIP() << "no checkpoint: " << model.status();
  ASSERT_TRUE(model.ok()) << model.status();
  const int64_t vocab_size = (*model)->config().vocab_size;
  const int64_t max_len = (*model)->config().max_len;
  std::vector<std::vector<uint32_t>> inputs;
  for (int k = 0; k < 6; ++k) {
    std::vector<uint32_t> ids;
    for (int64_t t = 0; t < std::min<int64_t>(max_len, 3 + 5 * k); ++t) {
      ids.push_back(static_cast<uint32_t>((t * 7 + k * 3 + 2) % vocab_size));
    }
    inputs.push_back(ids);
  }
  std::vector<Matrix> expected;
  for (const auto& ids : inputs) {
    absl::StatusOr<ModelOutput> out = (*model)->Forward(ids, {.threads = 1, .keep_weights_of = {}});
    ASSERT_TRUE(out.ok()) << out.status();
    expected.push_back(std::move(out->hidden));
  }
  constexpr int kCallers = 4;
  std::vector<int> mismatches(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 3; ++round) {
        for (size_t k = 0; k < inputs.size(); ++k) {
          const size_t i = (k + static_cast<size_t>(c)) % inputs.size();
          absl::StatusOr<ModelOutput> out =
              (*model)->Forward(inputs[i], {.threads = 1 + (c + round) % 3, .keep_weights_of = {}});
          if (!out.ok() || !SameBits(out->hidden, expected[i])) ++mismatches[c];
        }
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(mismatches[c], 0) << "caller " << c;
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, ModelConcurrencyTest, ::testing::Values("hf_gpt2_f32", "hf_roberta_f16",
                                                                                "hf_qwen3_bf16"));

}  // namespace
}  // namespace tokvec
