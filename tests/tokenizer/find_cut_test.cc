// PreTokenizer::FindCut and Tokenizer::FindCut: every cut they return must leave the result unchanged — the
// pieces (and ids) of the two parts, each split on its own, are the pieces (and ids) of the whole. Checked at
// random limits on every shared corpus file and at every cut of random strings of hard characters, for the
// three presets (whose oracle, the ICU regex, is checked against them in preset_pre_tokenizer_test.cc) and for
// whitespace words.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tokenizer/pre_tokenizers/preset_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::vector<std::pair<size_t, size_t>> Split(const PreTokenizer& split, std::string_view text, size_t base) {
  std::vector<Piece> pieces;
  EXPECT_TRUE(split.Split(text, &pieces).ok());
  std::vector<std::pair<size_t, size_t>> out;
  for (const Piece& p : pieces) out.emplace_back(base + p.begin, base + p.end);
  return out;
}

// "" when cutting `text` at `p` gives the pieces of the whole; else a description.
std::string CheckCut(const PreTokenizer& split, std::string_view text, size_t p) {
  if (p == 0 || p >= text.size()) return fmt::format("cut {} outside (0, {})", p, text.size());
  auto whole = Split(split, text, 0);
  auto parts = Split(split, text.substr(0, p), 0);
  auto right = Split(split, text.substr(p), p);
  parts.insert(parts.end(), right.begin(), right.end());
  if (parts == whole) return "";
  return fmt::format("cut at {} changes the pieces: '{}' | '{}'", p, text.substr(p > 20 ? p - 20 : 0, std::min<size_t>(p, 20)),
                     text.substr(p, 20));
}

std::vector<std::unique_ptr<PreTokenizer>> Splitters() {
  std::vector<std::unique_ptr<PreTokenizer>> out;
  for (const char* preset : {"gpt2", "cl100k", "o200k"}) out.push_back(MakePresetSplitter(preset));
  out.push_back(std::make_unique<WhitespacePreTokenizer>());
  return out;
}

TEST(FindCutTest, CutsKeepThePiecesOnEverySharedCorpus) {
  const std::filesystem::path corpora = std::filesystem::path(TOKVEC_SHARED_DIR) / "corpora";
  if (!std::filesystem::exists(corpora)) GTEST_SKIP() << corpora << " not found";
  std::mt19937 rng(11);
  size_t checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpora)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".txt") continue;
    absl::StatusOr<std::string> file = ReadFile(entry.path().string());
    ASSERT_TRUE(file.ok());
    const std::string text = file->substr(0, 3000);  // The pieces near a cut do not depend on the length.
    if (text.size() < 2) continue;
    for (const auto& split : Splitters()) {
      if (split->name() == "whitespace" && Utf8ValidEnd(text, 0) != text.size()) continue;
      for (int k = 0; k < 4; ++k) {
        const size_t p = split->FindCut(text, 1 + rng() % (text.size() - 1));
        if (p == 0) continue;
        ASSERT_EQ(CheckCut(*split, text, p), "") << split->name() << " on " << entry.path();
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

TEST(FindCutTest, EveryCutOfRandomHardStringsKeepsThePieces) {
  const std::vector<std::string> hard = {
      "a", "Z", "9", "١", "²", "中文", "é", "e\u0301", "ǅ", "'s", "'S", "'ll", "'", " ", "  ", "\t", "\n", "\r\n", "\r",
      "\u00a0", "\u3000", "!", "/", "...", "HTTPServer", "camelCase", "123456", " x", "\xff", "\xc3", "'ſ", "\u0301"};
  std::mt19937 rng(5);
  for (const auto& split : Splitters()) {
    const bool words = split->name() == "whitespace";
    for (int trial = 0; trial < 3000; ++trial) {
      std::string text;
      for (int k = rng() % 16; k >= 0; --k) {
        const std::string& h = hard[rng() % hard.size()];
        if (words && (h[0] == '\xff' || h[0] == '\xc3')) continue;  // Word models reject invalid UTF-8.
        text += h;
      }
      if (text.size() < 2) continue;
      // Every cut: FindCut from each limit down.
      for (size_t limit = text.size() - 1; limit > 0;) {
        const size_t p = split->FindCut(text, limit);
        if (p == 0) break;
        ASSERT_LE(p, limit);
        ASSERT_EQ(CheckCut(*split, text, p), "") << split->name() << " on '" << text << "'";
        limit = p - 1;
      }
    }
  }
}

// Through the tokenizer: the ids of the parts are the ids of the whole, with special tokens allowed, and
// English text has plenty of cut points (the chunks of `tokvec encode` stay near their 1 MB target).
TEST(FindCutTest, TokenizerCutsKeepTheIds) {
  const std::filesystem::path shared(TOKVEC_SHARED_DIR);
  if (!std::filesystem::exists(shared / "vocab" / "cl100k_base.tiktoken")) GTEST_SKIP() << "shared vocab not found";
  absl::StatusOr<std::string> file = ReadFile((shared / "corpora" / "tinyshakespeare.txt").string());
  if (!file.ok()) GTEST_SKIP() << "tinyshakespeare.txt not found";
  const std::string text = file->substr(0, 20000) + "<|endoftext|>" + file->substr(20000, 20000);
  for (const char* name : {"gpt2", "cl100k_base", "o200k_base"}) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
        Tokenizer::Load((shared / "vocab" / (std::string(name) + ".tiktoken")).string());
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    EncodeOptions options;
    options.allow_all_special = true;
    std::vector<TokenId> whole;
    ASSERT_TRUE((*tokenizer)->EncodeIds(text, options, &whole).ok());
    ASSERT_EQ(whole, (*tokenizer)->Encode(text, options)->ids);
    for (size_t limit : {100, 5000, 20005, 30000}) {
      const size_t p = (*tokenizer)->FindCut(text, limit, options);
      ASSERT_GT(p, limit - 100) << name;  // a cut close below the limit
      std::vector<TokenId> parts;
      ASSERT_TRUE((*tokenizer)->EncodeIds(text.substr(0, p), options, &parts).ok());
      ASSERT_TRUE((*tokenizer)->EncodeIds(text.substr(p), options, &parts, p).ok());
      EXPECT_EQ(parts, whole) << name << " cut at " << p;
    }
  }
}

}  // namespace
}  // namespace tokvec
