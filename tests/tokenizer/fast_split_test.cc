// The hand-written gpt2 splitter must cut exactly where the ICU regex path cuts (the oracle: the preset's regex
// compiled by ICU, split_pattern.h) on every file of ../shared/corpora, line by line and whole, and on seeded
// random strings of hard characters (contractions, Unicode letters/numbers/spaces, marks, ill-formed bytes).
#include "tokenizer/fast_split.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer/split_pattern.h"

namespace tokvec {
namespace {

std::unique_ptr<PreTokenizer> IcuGpt2() {
  absl::StatusOr<std::unique_ptr<PreTokenizer>> icu = MakeSplitPreTokenizer(*SplitPresetRegex("gpt2"));
  EXPECT_TRUE(icu.ok()) << icu.status();
  return std::move(*icu);
}

std::string Show(std::string_view text, const std::vector<Piece>& pieces, size_t at) {
  std::string out;
  for (size_t k = (at > 3 ? at - 3 : 0); k < pieces.size() && k < at + 4; ++k) {
    out += "[" + std::string(text.substr(pieces[k].begin, pieces[k].end - pieces[k].begin)) + "]";
  }
  return out;
}

// Returns true when both splitters give the same pieces; reports the first difference.
bool SamePieces(const PreTokenizer& fast, const PreTokenizer& icu, std::string_view text, const std::string& what) {
  std::vector<Piece> a, b;
  EXPECT_TRUE(fast.Split(text, &a).ok());
  EXPECT_TRUE(icu.Split(text, &b).ok());
  for (size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
    if (k >= a.size() || k >= b.size() || a[k].begin != b[k].begin || a[k].end != b[k].end) {
      ADD_FAILURE() << what << ": piece " << k << " differs; fast " << Show(text, a, k) << " icu "
                    << Show(text, b, k);
      return false;
    }
  }
  return true;
}

TEST(FastGpt2SplitterTest, NameIsThePreset) { EXPECT_EQ(MakeFastGpt2Splitter()->name(), "gpt2"); }

TEST(FastGpt2SplitterTest, HandChecked) {
  std::vector<Piece> pieces;
  const std::string text = "I'm  here's 42x\n\n";
  ASSERT_TRUE(MakeFastGpt2Splitter()->Split(text, &pieces).ok());
  std::vector<std::string> got;
  for (const Piece& p : pieces) got.push_back(text.substr(p.begin, p.end - p.begin));
  EXPECT_EQ(got, (std::vector<std::string>{"I", "'m", " ", " here", "'s", " 42", "x", "\n\n"}));
}

TEST(FastGpt2SplitterTest, EqualsIcuOnEveryCorpusFile) {
  const std::filesystem::path corpora = std::filesystem::path(TOKVEC_SHARED_DIR) / "corpora";
  if (!std::filesystem::is_directory(corpora)) GTEST_SKIP() << corpora << " not found (shared data absent)";
  const std::unique_ptr<PreTokenizer> fast = MakeFastGpt2Splitter(), icu = IcuGpt2();
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpora)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    ++files;
    if (!SamePieces(*fast, *icu, text, entry.path().string())) return;
  }
  EXPECT_GT(files, 10);
}

TEST(FastGpt2SplitterTest, EqualsIcuOnRandomHardStrings) {
  const std::vector<std::string> atoms = {
      "a", "Z", "é", "中", "𝒜", "ß", "0", "9", "٣", "Ⅻ", "½", " ", "  ", "\t", "\n", "\r\n", "\r", "\v", "\f",
      "\xC2\xA0" /* NBSP */, "\xE3\x80\x80" /* ideographic space */, "\xE2\x80\xA8" /* U+2028 */,
      "\xE1\xA0\x8E" /* U+180E, not White_Space */, "\xEF\xBB\xBF" /* BOM */, "\xCC\x81" /* combining acute */,
      "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'R", "'l", "!", "?!", "...", "-", "😀", "$",
      "\xFF", "\xC3" /* truncated */, "\xED\xA0\x80" /* surrogate */, std::string(1, '\0'), "_", "ǅ" /* titlecase */};
  const std::unique_ptr<PreTokenizer> fast = MakeFastGpt2Splitter(), icu = IcuGpt2();
  std::mt19937_64 rng(20240601);
  for (int n = 0; n < 5000; ++n) {
    std::string text;
    const int length = static_cast<int>(rng() % 24);
    for (int k = 0; k < length; ++k) text += atoms[rng() % atoms.size()];
    if (!SamePieces(*fast, *icu, text, "random string #" + std::to_string(n))) return;
  }
}

}  // namespace
}  // namespace tokvec
