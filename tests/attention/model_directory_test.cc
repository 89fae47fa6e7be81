// Model directories: tokenizer ids equal the reference encoder's, RoBERTa wraps <s> ... </s>, and sliding windows
// follow the documented rule (each token's vector is the one its owning window computes on its own).
#include "attention/model_directory.h"

#include <string>

#include "attention/sliding_window.h"
#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";

TEST(ModelDirectoryTest, IdsMatchTheReferenceEncoder) {
  for (const std::string arch : {"gpt2", "roberta"}) {
    absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + arch + "_f32");
    ASSERT_TRUE(dir.ok()) << dir.status();
    nlohmann::json reference = nlohmann::json::parse(*ReadFile(kTestdata + "/hf_" + arch + "_reference.json"));
    for (size_t i = 0; i < reference["texts"].size(); ++i) {
      absl::StatusOr<std::vector<uint32_t>> ids = dir->Tokenize(reference["texts"][i].get<std::string>());
      ASSERT_TRUE(ids.ok()) << ids.status();
      EXPECT_EQ(*ids, reference["ids"][i].get<std::vector<uint32_t>>()) << arch << " " << reference["texts"][i];
    }
  }
}

class WindowTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WindowTest, EachTokenComesFromItsOwningWindow) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + GetParam() + "_f32");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const bool roberta = GetParam() == "roberta";
  const int64_t max_len = dir->model().config().max_len;
  std::string text;
  while (true) {
    absl::StatusOr<std::vector<uint32_t>> ids = dir->Tokenize(text);
    if (static_cast<int64_t>(ids->size()) > max_len + 20) break;
    text += "The quick brown fox jumps over the lazy dog. ";
  }
  // Without windows: an error that says how to ask for them.
  absl::StatusOr<EmbeddedText> plain = dir->Embed(text, {});
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(std::string(plain.status().message()), HasSubstr("--window"));

  const int64_t window = 16, stride = 6;
  absl::StatusOr<EmbeddedText> windowed = dir->Embed(text, {.window = window, .stride = stride});
  ASSERT_TRUE(windowed.ok()) << windowed.status();
  const std::vector<uint32_t>& ids = windowed->ids;
  const int64_t extra = roberta ? 2 : 0, first = roberta ? 1 : 0;
  const int64_t content = static_cast<int64_t>(ids.size()) - extra;
  absl::StatusOr<std::vector<Window>> plan = PlanWindows(content, window - extra, stride);
  ASSERT_TRUE(plan.ok());
  const std::vector<int> owner = AssignTokensToWindows(*plan, content, dir->model().causal());
  for (size_t w = 0; w < plan->size(); ++w) {
    std::vector<uint32_t> sub;
    if (roberta) sub.push_back(ids.front());
    sub.insert(sub.end(), ids.begin() + first + (*plan)[w].begin, ids.begin() + first + (*plan)[w].end);
    if (roberta) sub.push_back(ids.back());
    absl::StatusOr<ModelOutput> alone = dir->model().Forward(sub);
    ASSERT_TRUE(alone.ok());
    for (int64_t t = (*plan)[w].begin; t < (*plan)[w].end; ++t) {
      if (owner[t] != static_cast<int>(w)) continue;
      for (int64_t j = 0; j < alone->hidden.cols(); ++j) {
        ASSERT_EQ(windowed->hidden.at(first + t, j), alone->hidden.at(first + t - (*plan)[w].begin, j))
            << "token " << t << " window " << w;
      }
    }
  }
}

TEST_P(WindowTest, OneWindowCoveringEverythingEqualsNoWindow) {
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(kTestdata + "/hf_" + GetParam() + "_f32");
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<EmbeddedText> plain = dir->Embed("Your cat is a lovely cat", {});
  absl::StatusOr<EmbeddedText> windowed =
      dir->Embed("Your cat is a lovely cat", {.window = dir->model().config().max_len, .stride = 3});
  ASSERT_TRUE(plain.ok() && windowed.ok());
  EXPECT_EQ(plain->hidden.storage(), windowed->hidden.storage());
}

INSTANTIATE_TEST_SUITE_P(Archs, WindowTest, ::testing::Values("gpt2", "roberta"));

}  // namespace
}  // namespace tokvec
