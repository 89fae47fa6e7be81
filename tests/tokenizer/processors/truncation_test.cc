// Truncation and padding of encodings (tokenizer/processors/truncation.h, padding.h, length_json.h), as Hugging
// Face's tokenizers does them: the pair lengths of its truncate_encodings tests (utils/truncation.rs), windows with
// a stride from either side, padding lengths (utils/padding.rs), and the file sections in every shape it reads.
// tests/tokenizer/sequence_encoding_test.cc checks whole encodings against Hugging Face's own output.
#include "tokenizer/processors/truncation.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/processors/length_json.h"
#include "tokenizer/processors/padding.h"

namespace tokvec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A text of `n` tokens with ids first, first + 1, ...
EncodedTokens Text(size_t n, TokenId first = 0) {
  std::vector<TokenId> ids;
  for (size_t i = 0; i < n; ++i) ids.push_back(first + static_cast<TokenId>(i));
  return EncodedTokens::OfText(ids, {}, {}, 0, 0);
}

TEST(TruncationTest, PairLengthsOfHuggingFacesTests) {
  // (length of a, length of b) -> their lengths after LongestFirst to 7 (tokenizers' truncate_encodings_longest_first).
  struct Case {
    size_t a, b, want_a, want_b;
  };
  const Case cases[] = {{0, 0, 0, 0}, {0, 2, 0, 2}, {0, 4, 0, 4}, {0, 8, 0, 7}, {2, 0, 2, 0}, {2, 2, 2, 2},
                        {2, 4, 2, 4}, {2, 8, 2, 5}, {4, 0, 4, 0}, {4, 2, 4, 2}, {4, 4, 3, 4}, {4, 8, 3, 4},
                        {8, 0, 7, 0}, {8, 2, 5, 2}, {8, 4, 4, 3}, {8, 8, 3, 4}};
  for (const Case& c : cases) {
    EncodedTokens a = Text(c.a), b = Text(c.b, 100);
    ASSERT_TRUE(TruncateSequences(&a, &b, {.max_length = 7}).ok());
    EXPECT_EQ(a.size(), c.want_a) << c.a << " " << c.b;
    EXPECT_EQ(b.size(), c.want_b) << c.a << " " << c.b;
  }
  // max_length 0 empties both (truncate_encodings_empty).
  EncodedTokens a = Text(4), b = Text(8);
  ASSERT_TRUE(TruncateSequences(&a, &b, {.max_length = 0}).ok());
  EXPECT_EQ(a.size() + b.size(), 0u);
  ASSERT_EQ(a.overflowing.size(), 1u);
  EXPECT_EQ(a.overflowing[0].size(), 4u);
}

TEST(TruncationTest, WindowsOverlapByTheStrideFromEitherSide) {
  EncodedTokens right = Text(10);
  ASSERT_TRUE(TruncateWindows(&right, 4, 1, TruncationSide::kRight).ok());
  EXPECT_THAT(right.ids, ElementsAre(0, 1, 2, 3));
  ASSERT_EQ(right.overflowing.size(), 2u);  // the window reaching the end is the last
  EXPECT_THAT(right.overflowing[0].ids, ElementsAre(3, 4, 5, 6));
  EXPECT_THAT(right.overflowing[1].ids, ElementsAre(6, 7, 8, 9));
  EncodedTokens eleven = Text(11);
  ASSERT_TRUE(TruncateWindows(&eleven, 4, 1, TruncationSide::kRight).ok());
  ASSERT_EQ(eleven.overflowing.size(), 3u);
  EXPECT_THAT(eleven.overflowing[2].ids, ElementsAre(9, 10));
  EncodedTokens left = Text(10);
  ASSERT_TRUE(TruncateWindows(&left, 4, 1, TruncationSide::kLeft).ok());
  EXPECT_THAT(left.ids, ElementsAre(6, 7, 8, 9));
  ASSERT_EQ(left.overflowing.size(), 2u);
  EXPECT_THAT(left.overflowing[0].ids, ElementsAre(3, 4, 5, 6));
  EXPECT_THAT(left.overflowing[1].ids, ElementsAre(0, 1, 2, 3));
  EncodedTokens left_eleven = Text(11);
  ASSERT_TRUE(TruncateWindows(&left_eleven, 4, 1, TruncationSide::kLeft).ok());
  ASSERT_EQ(left_eleven.overflowing.size(), 3u);
  EXPECT_THAT(left_eleven.overflowing[2].ids, ElementsAre(0, 1));
  EncodedTokens short_text = Text(3);
  ASSERT_TRUE(TruncateWindows(&short_text, 4, 3, TruncationSide::kRight).ok());  // nothing to cut: no stride check
  EXPECT_EQ(short_text.size(), 3u);
  EncodedTokens bad = Text(10);
  EXPECT_THAT(TruncateWindows(&bad, 4, 4, TruncationSide::kRight).message(), HasSubstr("stride (4)"));
}

TEST(TruncationTest, OnlyFirstAndOnlySecond) {
  EncodedTokens a = Text(6), b = Text(6, 100);
  ASSERT_TRUE(TruncateSequences(&a, &b, {.max_length = 8, .strategy = TruncationStrategy::kOnlySecond}).ok());
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(b.size(), 2u);
  EncodedTokens c = Text(2), d = Text(6);
  EXPECT_THAT(TruncateSequences(&c, &d, {.max_length = 3, .strategy = TruncationStrategy::kOnlyFirst}).message(),
              HasSubstr("cannot reach max_length 3"));
  EncodedTokens single = Text(9);
  EXPECT_THAT(TruncateSequences(&single, nullptr, {.max_length = 3, .strategy = TruncationStrategy::kOnlySecond})
                  .message(),
              HasSubstr("needs a second text"));
}

TEST(PaddingTest, LengthsAndSides) {
  PaddingParams params;
  EXPECT_EQ(PaddedLength({5, 3}, params), 5u);
  params.pad_to_multiple_of = 6;
  EXPECT_EQ(PaddedLength({5, 3}, params), 6u);
  params.pad_to_multiple_of = 0;  // does not crash, does not round
  EXPECT_EQ(PaddedLength({5, 3}, params), 5u);
  params.fixed_length = 7;
  params.pad_to_multiple_of = 8;
  EXPECT_EQ(PaddedLength({5, 3}, params), 8u);
  EncodedTokens rows = Text(2, 10);
  PadRows(&rows, 4, {.direction = PaddingSide::kLeft, .pad_id = 9, .pad_type_id = 1});
  EXPECT_THAT(rows.ids, ElementsAre(9, 9, 10, 11));
  EXPECT_THAT(rows.type_ids, ElementsAre(1, 1, 0, 0));
  EXPECT_THAT(rows.attention_mask, ElementsAre(0, 0, 1, 1));
  EXPECT_THAT(rows.special_tokens_mask, ElementsAre(1, 1, 0, 0));
  EXPECT_THAT(rows.word_ids, ElementsAre(-1, -1, -1, -1));  // Text() has no words
  EncodedTokens longer = Text(5);
  PadRows(&longer, 4, {});
  EXPECT_EQ(longer.size(), 5u);  // never cut
}

TEST(LengthJsonTest, SectionsInEveryShapeHuggingFaceReads) {
  using Json = nlohmann::json;
  // Current shape, and the older one without "direction" (Right).
  absl::StatusOr<std::optional<TruncationParams>> current = ReadHfTruncation(
      Json::parse(R"({"truncation": {"direction": "Left", "max_length": 256, "strategy": "OnlySecond", "stride": 4}})"),
      "t.json");
  ASSERT_TRUE(current.ok() && current->has_value()) << current.status();
  EXPECT_EQ((*current)->max_length, 256u);
  EXPECT_EQ((*current)->stride, 4u);
  EXPECT_EQ((*current)->direction, TruncationSide::kLeft);
  EXPECT_EQ((*current)->strategy, TruncationStrategy::kOnlySecond);
  absl::StatusOr<std::optional<TruncationParams>> old =
      ReadHfTruncation(Json::parse(R"({"truncation": {"max_length": 128, "strategy": "LongestFirst", "stride": 0}})"),
                       "t.json");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->direction, TruncationSide::kRight);
  EXPECT_FALSE(ReadHfTruncation(Json::parse(R"({"truncation": null})"), "t.json")->has_value());
  EXPECT_FALSE(ReadHfTruncation(Json::parse(R"({})"), "t.json")->has_value());
  // Padding: Fixed and BatchLongest; pad_to_multiple_of null or absent (older files).
  absl::StatusOr<std::optional<PaddingParams>> fixed = ReadHfPadding(
      Json::parse(R"({"padding": {"strategy": {"Fixed": 128}, "direction": "Left", "pad_to_multiple_of": 8,
                     "pad_id": 1, "pad_type_id": 2, "pad_token": "<pad>"}})"),
      "p.json");
  ASSERT_TRUE(fixed.ok() && fixed->has_value()) << fixed.status();
  EXPECT_EQ((*fixed)->fixed_length, 128u);
  EXPECT_EQ((*fixed)->direction, PaddingSide::kLeft);
  EXPECT_EQ((*fixed)->pad_to_multiple_of, 8u);
  EXPECT_EQ((*fixed)->pad_id, 1u);
  EXPECT_EQ((*fixed)->pad_type_id, 2u);
  EXPECT_EQ((*fixed)->pad_token, "<pad>");
  absl::StatusOr<std::optional<PaddingParams>> longest = ReadHfPadding(
      Json::parse(R"({"padding": {"strategy": "BatchLongest", "direction": "Right", "pad_id": 0, "pad_type_id": 0,
                     "pad_token": "[PAD]"}})"),
      "p.json");
  ASSERT_TRUE(longest.ok() && longest->has_value()) << longest.status();
  EXPECT_FALSE((*longest)->fixed_length.has_value());
  EXPECT_FALSE((*longest)->pad_to_multiple_of.has_value());
  // Written back as Hugging Face writes them, read back the same.
  const nlohmann::ordered_json written = WriteHfPadding(*fixed);
  absl::StatusOr<std::optional<PaddingParams>> again = ReadHfPadding(Json::parse(
      nlohmann::ordered_json{{"padding", written}}.dump()), "p.json");
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->fixed_length, 128u);
  EXPECT_EQ(WriteHfTruncation(*current).dump(),
            R"({"direction":"Left","max_length":256,"strategy":"OnlySecond","stride":4})");
}

TEST(LengthJsonTest, MalformedSectionsNameTheKey) {
  using Json = nlohmann::json;
  auto truncation_error = [](const char* text) {
    return std::string(ReadHfTruncation(Json::parse(text), "t.json").status().message());
  };
  auto padding_error = [](const char* text) {
    return std::string(ReadHfPadding(Json::parse(text), "p.json").status().message());
  };
  EXPECT_THAT(truncation_error(R"({"truncation": {"strategy": "LongestFirst", "stride": 0}})"),
              HasSubstr("truncation.max_length': missing"));
  EXPECT_THAT(truncation_error(R"({"truncation": {"max_length": -1, "strategy": "LongestFirst", "stride": 0}})"),
              HasSubstr("truncation.max_length"));
  EXPECT_THAT(truncation_error(R"({"truncation": {"max_length": 5, "strategy": "Shortest", "stride": 0}})"),
              HasSubstr("truncation.strategy"));
  EXPECT_THAT(truncation_error(R"({"truncation": {"max_length": 5, "strategy": "OnlyFirst"}})"),
              HasSubstr("truncation.stride"));
  EXPECT_THAT(truncation_error(R"({"truncation": {"direction": "Up", "max_length": 5, "strategy": "OnlyFirst", "stride": 0}})"),
              HasSubstr("truncation.direction"));
  EXPECT_THAT(truncation_error(R"({"truncation": 5})"), HasSubstr("'truncation'"));
  EXPECT_THAT(padding_error(R"({"padding": {"strategy": {"Fixed": "x"}, "direction": "Right", "pad_id": 0,
                                "pad_type_id": 0, "pad_token": "[PAD]"}})"),
              HasSubstr("padding.strategy.Fixed"));
  EXPECT_THAT(padding_error(R"({"padding": {"strategy": "BatchLongest", "pad_id": 0, "pad_type_id": 0,
                                "pad_token": "[PAD]"}})"),
              HasSubstr("padding.direction"));
  EXPECT_THAT(padding_error(R"({"padding": {"strategy": "BatchLongest", "direction": "Right", "pad_type_id": 0,
                                "pad_token": "[PAD]"}})"),
              HasSubstr("padding.pad_id"));
  EXPECT_THAT(padding_error(R"({"padding": {"strategy": "Longest", "direction": "Right", "pad_id": 0,
                                "pad_type_id": 0, "pad_token": "[PAD]"}})"),
              HasSubstr("padding.strategy"));
}

}  // namespace
}  // namespace tokvec
