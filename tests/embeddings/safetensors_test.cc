#include "embeddings/safetensors.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// A safetensors file from a header JSON and a data buffer, exactly as given (no checks).
std::string RawFile(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

std::string Floats(std::vector<float> v) { return std::string(reinterpret_cast<const char*>(v.data()), 4 * v.size()); }

TEST(SafetensorsTest, WriteThenReadRoundTripsF32ZeroCopy) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {-0.5f};
  absl::StatusOr<std::string> bytes = SerializeSafetensors({{"b", {1}, b.data()}, {"a", {2, 3}, a.data()}}, {{"format", "pt"}});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  uint64_t header_len;
  std::memcpy(&header_len, bytes->data(), 8);
  EXPECT_EQ((8 + header_len) % 8, 0u) << "data buffer must start aligned";
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::FromBytes(*bytes, "mem.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->metadata().at("format"), "pt");
  ASSERT_EQ((*file)->entries().size(), 2u);
  EXPECT_EQ((*file)->entries()[0].name, "a");
  absl::StatusOr<FloatTensor> t = (*file)->ReadFloat32("a");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<float>(t->data, t->data + 6), a);
  // Zero copy: the pointer lies inside the file's bytes.
  const SafetensorsEntry* entry = (*file)->Find("a");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->dtype, "F32");
  absl::StatusOr<FloatTensor> tb = (*file)->ReadFloat32("b");
  ASSERT_TRUE(tb.ok());
  EXPECT_EQ(tb->data[0], -0.5f);
}

// Reference bit patterns from IEEE 754 binary16 and bfloat16 (e.g. Wikipedia's "Half-precision" examples).
TEST(SafetensorsTest, HalfAndBFloat16Conversion) {
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);               // largest normal
  EXPECT_EQ(HalfToFloat(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
  EXPECT_EQ(BFloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(0xC049), -3.140625f);
  EXPECT_EQ(BFloat16ToFloat(0x7F80), std::numeric_limits<float>::infinity());
}

TEST(SafetensorsTest, ReadsF16AndBF16AndRefusesIntegers) {
  std::string data;
  for (uint16_t bits : {0x3C00, 0xC000}) data.append(reinterpret_cast<const char*>(&bits), 2);  // F16 1, -2
  for (uint16_t bits : {0x3F80, 0x4040}) data.append(reinterpret_cast<const char*>(&bits), 2);  // BF16 1, 3
  int64_t ids[2] = {7, 8};
  data.append(reinterpret_cast<const char*>(ids), 16);
  const std::string header =
      R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[4,8]},)"
      R"("pos":{"dtype":"I64","shape":[1,2],"data_offsets":[8,24]}})";
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::FromBytes(RawFile(header, data), "m.st");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<FloatTensor> h = (*file)->ReadFloat32("h");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->data[0], 1.0f);
  EXPECT_EQ(h->data[1], -2.0f);
  absl::StatusOr<FloatTensor> b = (*file)->ReadFloat32("b");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->data[1], 3.0f);
  absl::StatusOr<FloatTensor> pos = (*file)->ReadFloat32("pos");
  EXPECT_EQ(pos.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(pos.status().message()), AllOf(HasSubstr("'m.st'"), HasSubstr("'pos'"), HasSubstr("I64")));
  absl::StatusOr<FloatTensor> missing = (*file)->ReadFloat32("nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("'nope'"));
}

struct BadCase {
  std::string label;
  std::string bytes;
  std::vector<std::string> mentions;  // substrings the error must contain
};

TEST(SafetensorsTest, BadFilesAreErrorsNamingFileAndTensor) {
  const std::string four = Floats({1, 2, 3, 4});
  std::string huge_len(8, '\0');
  const uint64_t past = 1000;
  std::memcpy(huge_len.data(), &past, 8);
  const std::vector<BadCase> cases = {
      {"shorter than 8 bytes", "\x05\0\0", {"bad.st", "truncated"}},
      {"header length past end", huge_len + "{}", {"bad.st", "header length 1000", "past the end"}},
      {"header not json", RawFile("{not json", four), {"bad.st", "not a JSON object"}},
      {"offsets past data", RawFile(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,32]}})", four),
       {"bad.st", "'w'", "[0, 32]", "16-byte data buffer"}},
      {"begin > end", RawFile(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", four),
       {"bad.st", "'w'", "begin > end"}},
      {"shape disagrees with span", RawFile(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", four),
       {"bad.st", "'w'", "shape [3]", "needs 12"}},
      {"unknown dtype", RawFile(R"({"w":{"dtype":"Q4","shape":[4],"data_offsets":[0,16]}})", four),
       {"bad.st", "'w'", "unsupported dtype 'Q4'"}},
      {"overlap",
       RawFile(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
               four),
       {"bad.st", "'a'", "'b'", "overlap"}},
      {"negative shape", RawFile(R"({"w":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", four),
       {"bad.st", "'w'", "non-negative"}},
      {"missing offsets", RawFile(R"({"w":{"dtype":"F32","shape":[4]}})", four), {"bad.st", "'w'", "data_offsets"}},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::FromBytes(c.bytes, "bad.st");
    ASSERT_FALSE(file.ok()) << c.label;
    for (const std::string& m : c.mentions) {
      EXPECT_THAT(std::string(file.status().message()), HasSubstr(m)) << c.label;
    }
  }
}

TEST(SafetensorsTest, TruncatedRealFileIsDataLoss) {
  std::vector<float> a(64, 1.0f);
  absl::StatusOr<std::string> bytes = SerializeSafetensors({{"wte.weight", {8, 8}, a.data()}}, {});
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file =
      SafetensorsFile::FromBytes(bytes->substr(0, bytes->size() - 5), "model.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(file.status().message()),
              AllOf(HasSubstr("model.safetensors"), HasSubstr("'wte.weight'"), HasSubstr("truncated")));
}

TEST(SafetensorsTest, OpenMissingFileNamesIt) {
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::Open("/nonexistent/model.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(std::string(file.status().message()), HasSubstr("/nonexistent/model.safetensors"));
}

}  // namespace
}  // namespace tokvec
