// SafetensorsShards: one file or the shards of a model.safetensors.index.json, and the index's bad-input cases
// (missing shard, a tensor in two shards, an index naming a tensor its shard lacks, names outside the folder).
#include "embeddings/safetensors_shards.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// A fresh folder per test (ctest runs cases of one binary in parallel).
class SafetensorsShardsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("tokvec_shards_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // shard file name -> tensors {name, values} (each tensor 1-D).
  void WriteShard(const std::string& name, const std::vector<std::pair<std::string, std::vector<float>>>& tensors) {
    std::vector<NamedTensor> named;
    for (const auto& [tensor, values] : tensors) {
      named.push_back({tensor, {static_cast<int64_t>(values.size())}, values.data()});
    }
    ASSERT_TRUE(WriteSafetensors((dir_ / name).string(), named).ok());
  }
  std::string WriteIndex(const std::string& json) {
    const std::string path = (dir_ / "model.safetensors.index.json").string();
    EXPECT_TRUE(WriteFileAtomically(path, json).ok());
    return path;
  }
  std::string Error(const std::string& index_json) {
    absl::StatusOr<std::unique_ptr<SafetensorsShards>> shards = SafetensorsShards::Open(WriteIndex(index_json));
    EXPECT_FALSE(shards.ok());
    return shards.ok() ? "" : std::string(shards.status().message());
  }

  fs::path dir_;
};

TEST_F(SafetensorsShardsTest, ReadsTensorsFromEveryShard) {
  WriteShard("model-00001-of-00002.safetensors", {{"a", {1, 2}}, {"b", {3}}});
  WriteShard("model-00002-of-00002.safetensors", {{"c", {4, 5, 6}}, {"extra", {7}}});
  absl::StatusOr<std::unique_ptr<SafetensorsShards>> shards = SafetensorsShards::Open(WriteIndex(
      R"({"metadata": {"total_size": 28}, "weight_map": {"a": "model-00001-of-00002.safetensors",
          "b": "model-00001-of-00002.safetensors", "c": "model-00002-of-00002.safetensors"}})"));
  ASSERT_TRUE(shards.ok()) << shards.status();
  EXPECT_EQ((*shards)->shard_count(), 2u);
  absl::StatusOr<FloatTensor> c = (*shards)->ReadFloat32("c");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(std::vector<float>(c->data, c->data + 3), (std::vector<float>{4, 5, 6}));
  absl::StatusOr<FloatTensor> a = (*shards)->ReadFloat32("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->data[1], 2.0f);
  EXPECT_NE((*shards)->Find("extra"), nullptr) << "a tensor the index does not list is still in its shard";
  EXPECT_EQ((*shards)->Find("d"), nullptr);
  EXPECT_EQ((*shards)->ReadFloat32("d").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(SafetensorsShardsTest, OneFileIsOneShard) {
  WriteShard("model.safetensors", {{"a", {1, 2}}});
  absl::StatusOr<std::unique_ptr<SafetensorsShards>> shards =
      SafetensorsShards::Open((dir_ / "model.safetensors").string());
  ASSERT_TRUE(shards.ok()) << shards.status();
  EXPECT_EQ((*shards)->shard_count(), 1u);
  EXPECT_NE((*shards)->Find("a"), nullptr);
}

TEST_F(SafetensorsShardsTest, MissingShardIsNotFound) {
  WriteShard("one.safetensors", {{"a", {1}}});
  absl::StatusOr<std::unique_ptr<SafetensorsShards>> shards =
      SafetensorsShards::Open(WriteIndex(R"({"weight_map": {"a": "one.safetensors", "b": "two.safetensors"}})"));
  ASSERT_FALSE(shards.ok());
  EXPECT_EQ(shards.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(shards.status().message()),
              AllOf(HasSubstr("model.safetensors.index.json"), HasSubstr("'two.safetensors', which does not exist")));
}

TEST_F(SafetensorsShardsTest, TensorInTwoShardsIsAnError) {
  WriteShard("one.safetensors", {{"a", {1}}, {"b", {2}}});
  WriteShard("two.safetensors", {{"b", {3}}});
  EXPECT_THAT(Error(R"({"weight_map": {"a": "one.safetensors", "b": "two.safetensors"}})"),
              AllOf(HasSubstr("tensor 'b' is in two shards"), HasSubstr("one.safetensors"),
                    HasSubstr("two.safetensors")));
}

TEST_F(SafetensorsShardsTest, IndexNamingAMissingTensorIsAnError) {
  WriteShard("one.safetensors", {{"a", {1}}});
  WriteShard("two.safetensors", {{"c", {1}}});
  EXPECT_THAT(Error(R"({"weight_map": {"a": "one.safetensors", "b": "one.safetensors", "c": "two.safetensors"}})"),
              HasSubstr("maps tensor 'b' to"));
  // 'a' is in one.safetensors, which the index names (for 'x'), but the index puts 'a' in two.safetensors.
  EXPECT_THAT(Error(R"({"weight_map": {"a": "two.safetensors", "c": "two.safetensors", "x": "one.safetensors"}})"),
              AllOf(HasSubstr("maps tensor 'a' to"), HasSubstr("two.safetensors"), HasSubstr("(it is in"),
                    HasSubstr("one.safetensors")));
}

TEST_F(SafetensorsShardsTest, MalformedIndexesAreErrors) {
  WriteShard("one.safetensors", {{"a", {1}}});
  EXPECT_THAT(Error("{\"weight_map\": "), HasSubstr("is not a JSON object"));
  EXPECT_THAT(Error("[]"), HasSubstr("is not a JSON object"));
  EXPECT_THAT(Error(R"({"metadata": {}})"), HasSubstr("'weight_map' must be a non-empty object"));
  EXPECT_THAT(Error(R"({"weight_map": {}})"), HasSubstr("'weight_map' must be a non-empty object"));
  EXPECT_THAT(Error(R"({"weight_map": {"a": 3}})"), HasSubstr("must be a file name, not 3"));
  EXPECT_THAT(Error(R"({"weight_map": {"a": "../one.safetensors"}})"), HasSubstr("a file name beside the index"));
  EXPECT_THAT(Error(R"({"weight_map": {"a": "/etc/passwd"}})"), HasSubstr("a file name beside the index"));
  EXPECT_THAT(Error(R"({"weight_map": {"a": ""}})"), HasSubstr("a file name beside the index"));
}

TEST_F(SafetensorsShardsTest, BadShardNamesTheShard) {
  ASSERT_TRUE(WriteFileAtomically((dir_ / "one.safetensors").string(), "not a safetensors file").ok());
  EXPECT_THAT(Error(R"({"weight_map": {"a": "one.safetensors"}})"), HasSubstr("one.safetensors"));
}

}  // namespace
}  // namespace tokvec
