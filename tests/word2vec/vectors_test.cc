// Vector files: round trips through both formats, files as word2vec.c / gensim / fastText write them (built by
// hand here from their documented layouts), and every kind of bad input as a clear status.
#include "word2vec/vectors.h"

#include <cstring>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec::word2vec {
namespace {

using ::testing::HasSubstr;

Vectors Sample() {
  Vectors v;
  v.words = {"</s>", "the", "cat", "Ġdog"};
  v.dim = 3;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (int i = 0; i < 12; ++i) v.values.push_back(normal(rng) / 7);
  v.values[4] = 1e-30f;  // tiny values must survive the text format too
  return v;
}

std::string Binary(const std::vector<std::pair<std::string, std::vector<float>>>& rows, int dim, bool newline) {
  std::string out = std::to_string(rows.size()) + " " + std::to_string(dim) + "\n";
  for (const auto& [word, values] : rows) {
    out += word + " ";
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    if (newline) out += "\n";
  }
  return out;
}

TEST(VectorsTest, TextAndBinaryRoundTripExactly) {
  const Vectors v = Sample();
  for (bool binary : {false, true}) {
    auto back = ParseVectors(FormatVectors(v, binary), "x");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->words, v.words);
    EXPECT_EQ(back->dim, 3);
    ASSERT_EQ(back->values.size(), v.values.size());
    EXPECT_EQ(std::memcmp(back->values.data(), v.values.data(), v.values.size() * 4), 0) << "binary " << binary;
  }
}

TEST(VectorsTest, ReadsWord2VecGensimAndFastTextLayouts) {
  // word2vec.c text: "%s " then "%lf " per value, '\n'; gensim text: no trailing space; fastText .vec like word2vec.
  for (const std::string text : {std::string("2 2\nab 0.500000 -1.000000 \ncd 2.000000 0.250000 \n"),
                                 std::string("2 2\nab 0.5 -1.0\ncd 2 0.25\n"), std::string("2 2\r\nab 0.5 -1\r\ncd 2 0.25")}) {
    auto v = ParseVectors(text, "t");
    ASSERT_TRUE(v.ok()) << v.status() << " for " << text;
    EXPECT_EQ(v->words, (std::vector<std::string>{"ab", "cd"}));
    EXPECT_EQ(v->values, (std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f}));
  }
  // Binary with and without the '\n' after each record (word2vec.c writes it; some writers do not), and values
  // whose bytes include ' ' and '\n'.
  const float tricky = [] { uint32_t bits = 0x200A200A; float f; std::memcpy(&f, &bits, 4); return f; }();
  for (bool newline : {true, false}) {
    auto v = ParseVectors(Binary({{"ab", {tricky, 1.5f}}, {"cd", {-2.0f, tricky}}}, 2, newline), "b");
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->words, (std::vector<std::string>{"ab", "cd"}));
    EXPECT_EQ(v->values, (std::vector<float>{tricky, 1.5f, -2.0f, tricky}));
  }
}

TEST(VectorsTest, BadInputIsAClearError) {
  struct Case {
    std::string bytes;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "must start with a header line"},
      {"hello world\n", "must start with a header line"},
      {"2 3 4\n", "exactly two numbers"},
      {"1 0\nx \n", "outside 1..65536"},
      {"1 99999999\nx 1\n", "outside 1..65536"},
      {"1000000000 100\nx 1\n", "cannot fit"},
      {"2 2\nab 1 2\n", "truncated"},
      {"1 2\nab 1\n", "1 values where the header says 2"},
      {"1 2\nab 1 2 3\n", "more than the 2 values"},
      {"1 2\nab 1 nan\n", "not a finite number"},
      {"1 2\nab 1 inf\n", "not a finite number"},
      {"1 2\nab 1 1e99\n", "out of float range"},
      {"1 2\nab 1 2x\n", "not a finite number"},
      {"1 2\nab 1 2\ncd 3 4\n", "data after the 1 words"},
      {Binary({{"ab", {1, 2}}}, 2, true).substr(0, 12), "truncated"},
      {Binary({{"ab", {1, std::nanf("")}}}, 2, true), "not a finite number"},
  };
  for (const Case& c : cases) {
    auto v = ParseVectors(c.bytes, "f.vec");
    ASSERT_FALSE(v.ok()) << "accepted: " << c.bytes;
    EXPECT_THAT(v.status().message(), HasSubstr(c.message)) << c.bytes;
    EXPECT_THAT(v.status().message(), HasSubstr("f.vec"));
  }
}

TEST(VectorsTest, FindReturnsTheFirstRow) {
  auto v = ParseVectors("3 1\na 1\nb 2\na 3\n", "t");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->Find("a"), 0u);
  EXPECT_EQ(v->Find("b"), 1u);
  EXPECT_EQ(v->Find("c"), std::nullopt);
}

}  // namespace
}  // namespace tokvec::word2vec
