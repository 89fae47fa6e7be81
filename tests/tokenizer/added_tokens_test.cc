// Hugging Face's added tokens and post-processors: tests/data/added (scripts/gen_added_files.mjs, ids and offsets
// from Hugging Face tokenizers 0.23.2), and AddedTokenMatcher against a brute-force leftmost-longest search.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/added_token_matcher.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/added/" + name; }

using Offsets = std::vector<std::vector<size_t>>;

Offsets AsPairs(const std::vector<Offset>& offsets) {
  Offsets out;
  for (const Offset& o : offsets) out.push_back({o.begin, o.end});
  return out;
}

// Hugging Face matches special tokens too: compare with allow_all_special; with add_special_tokens, its
// add_special_tokens=True; and its decode of the latter.
TEST(AddedTokensTest, GoldensFromHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json golden = nlohmann::json::parse(*text);
  ASSERT_EQ(golden.size(), 6u);
  size_t cases = 0;
  for (const auto& [file, rows] : golden.items()) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(file + ".json"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    for (const auto& row : rows) {
      const std::string input = row["text"].get<std::string>();
      for (const bool add : {false, true}) {
        EncodeOptions options{.allow_all_special = true, .add_special_tokens = add};
        absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(input, options);
        ASSERT_TRUE(encoding.ok()) << encoding.status();
        EXPECT_EQ(encoding->ids, row[add ? "ids_with_specials" : "ids"].get<std::vector<TokenId>>())
            << file << " add_special_tokens=" << add << " " << input;
        const char* offsets_key = add ? "offsets_with_specials" : "offsets";
        if (row.contains(offsets_key)) {
          EXPECT_EQ(AsPairs(encoding->offsets), row[offsets_key].get<Offsets>())
              << file << " offsets add_special_tokens=" << add << " " << input;
        }
        ++cases;
      }
      // decode(ids, skip_special_tokens=false): a `normalized` added token spells as its normalization.
      absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(row["ids_with_specials"].get<std::vector<TokenId>>());
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(*decoded, row["decoded_with_specials"].get<std::string>()) << file << " decode " << input;
    }
  }
  EXPECT_GE(cases, 100u);
}

TEST(AddedTokensTest, SpecialTokensNeedAllowingNonSpecialOnesDoNot) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath("byte-added.json"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  const TokenId think = *(*tokenizer)->FindSpecial("<think>");
  const TokenId mask = *(*tokenizer)->FindSpecial("<mask>");
  absl::StatusOr<Encoding> plain = (*tokenizer)->Encode("a <mask><think>");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->ids.back(), think);
  EXPECT_EQ(std::count(plain->ids.begin(), plain->ids.end(), mask), 0);
  absl::StatusOr<Encoding> allowed = (*tokenizer)->Encode("a <mask><think>", {.allowed_special = {"<mask>"}});
  ASSERT_TRUE(allowed.ok());
  // lstrip: <mask> takes the space before it; RobertaProcessing's trim_offsets then leaves it out of the offsets.
  ASSERT_EQ(allowed->ids.size(), 3u);
  EXPECT_EQ(allowed->ids[1], mask);
  EXPECT_EQ(allowed->offsets[1].begin, 2u);
  EXPECT_EQ(allowed->ids[2], think);
  EXPECT_FALSE((*tokenizer)->Encode("x", {.allowed_special = {"<nope>"}}).ok());
}

// The first leftmost-longest occurrence at or after `from`, by trying every start and every pattern.
std::pair<size_t, size_t> BruteForce(const std::vector<std::string>& patterns, std::string_view text, size_t from) {
  for (size_t begin = from; begin < text.size(); ++begin) {
    size_t best = 0;
    size_t index = 0;
    for (size_t p = 0; p < patterns.size(); ++p) {
      if (patterns[p].size() > best && text.substr(begin).starts_with(patterns[p])) {
        best = patterns[p].size();
        index = p;
      }
    }
    if (best > 0) return {begin, index};
  }
  return {std::string_view::npos, 0};
}

TEST(AddedTokenMatcherTest, LeftmostLongestLikeBruteForce) {
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> patterns;
    std::vector<AddedTokenMatcher::Pattern> added;
    const int count = 1 + static_cast<int>(random() % 12);
    for (int p = 0; p < count; ++p) {
      std::string pattern;
      const int length = 1 + static_cast<int>(random() % 5);
      for (int k = 0; k < length; ++k) pattern += static_cast<char>('a' + random() % 3);
      if (std::find(patterns.begin(), patterns.end(), pattern) != patterns.end()) continue;
      patterns.push_back(pattern);
      added.push_back({pattern, static_cast<TokenId>(patterns.size() - 1), {}});
    }
    std::string text;
    const int length = static_cast<int>(random() % 40);
    for (int k = 0; k < length; ++k) text += static_cast<char>('a' + random() % 4);
    std::vector<AddedTokenMatcher::Match> matches;
    AddedTokenMatcher(added).FindAll(text, &matches);
    std::vector<AddedTokenMatcher::Match> expected;
    for (size_t from = 0;;) {
      const auto [begin, index] = BruteForce(patterns, text, from);
      if (begin == std::string_view::npos) break;
      expected.push_back({begin, begin + patterns[index].size(), static_cast<TokenId>(index)});
      from = begin + patterns[index].size();
    }
    ASSERT_EQ(matches.size(), expected.size()) << text;
    for (size_t i = 0; i < matches.size(); ++i) {
      EXPECT_EQ(matches[i].begin, expected[i].begin) << text;
      EXPECT_EQ(matches[i].end, expected[i].end) << text;
      EXPECT_EQ(matches[i].id, expected[i].id) << text;
    }
  }
}

TEST(AddedTokenMatcherTest, SingleWordAndStrip) {
  AddedTokenMatcher matcher({{"ab", 1, {.single_word = true}}, {"<m>", 2, {.lstrip = true}}, {"[[", 3, {.rstrip = true}}});
  std::vector<AddedTokenMatcher::Match> matches;
  matcher.FindAll("xab ab_ ab- \u00e9ab ab", &matches);
  ASSERT_EQ(matches.size(), 2u);  // "ab-" and the last "ab": '_', 'x', 'é' are word characters
  EXPECT_EQ(matches[0].begin, 8u);
  matches.clear();
  matcher.FindAll("a \u3000 <m>[[ \t b", &matches);  // U+3000 is white space
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[0].begin, 1u);
  EXPECT_EQ(matches[1].end, matches[1].begin + 5);
}

}  // namespace
}  // namespace tokvec
