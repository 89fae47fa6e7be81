// WordPiece training (tokenizer/trainers/wordpiece_trainer.h): each criterion against a brute-force reference
// written here (every step re-counts every pair from the words and scores it from scratch: the likelihood gain
// as the difference of the whole corpus' unigram log-likelihood before and after), Hugging Face's NLP-course
// example for the ratio score, the BERT layout of the written tokenizer.json, thread independence and errors.
// Hugging Face's ids on trained files are checked by `make conformance` (hf/trained-wordpiece/*).
#include "tokenizer/trainers/wordpiece_trainer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The reference: words as vectors of piece spellings, a vocabulary grown one merge at a time.
class Reference {
 public:
  Reference(const std::vector<WordCount>& words, WordPieceCriterion criterion) : criterion_(criterion) {
    vocab_ = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    std::vector<std::string> chars;
    for (const WordCount& w : words) {
      std::vector<std::string> pieces;
      for (char c : w.word) pieces.push_back(pieces.empty() ? std::string(1, c) : "##" + std::string(1, c));
      for (char c : w.word) chars.push_back(std::string(1, c));
      words_.push_back({pieces, static_cast<double>(w.count)});
    }
    std::sort(chars.begin(), chars.end());
    chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
    for (const std::string& c : chars) vocab_.push_back(c);
    for (const std::string& c : chars) vocab_.push_back("##" + c);
  }

  std::vector<std::string> Train(size_t vocab_size) {
    while (vocab_.size() < vocab_size) {
      std::map<std::pair<std::string, std::string>, double> pairs;
      for (const auto& [pieces, count] : words_) {
        for (size_t i = 0; i + 1 < pieces.size(); ++i) pairs[{pieces[i], pieces[i + 1]}] += count;
      }
      if (pairs.empty()) break;
      const double before = LogLikelihood(words_);
      std::pair<std::string, std::string> best;
      double best_score = -INFINITY;
      size_t best_left = 0, best_right = 0;
      for (const auto& [pair, count] : pairs) {
        double score = count;
        if (criterion_ == WordPieceCriterion::kRatio) {
          score = count / (SymbolCount(pair.first) * SymbolCount(pair.second));
        } else if (criterion_ == WordPieceCriterion::kLikelihood) {
          score = LogLikelihood(Merged(pair)) - before;
        }
        const size_t left = Id(pair.first), right = Id(pair.second);
        const bool tie = std::abs(score - best_score) <= 1e-9 * std::max(1.0, std::abs(score));
        const bool smaller_ids = std::make_pair(left, right) < std::make_pair(best_left, best_right);
        if ((!tie && score > best_score) || (tie && smaller_ids)) {
          best = pair, best_score = tie ? std::max(score, best_score) : score, best_left = left, best_right = right;
        }
      }
      words_ = Merged(best);
      const std::string merged = best.first + best.second.substr(2);
      if (std::find(vocab_.begin(), vocab_.end(), merged) == vocab_.end()) vocab_.push_back(merged);
    }
    return vocab_;
  }

 private:
  using Words = std::vector<std::pair<std::vector<std::string>, double>>;

  size_t Id(const std::string& piece) const { return std::find(vocab_.begin(), vocab_.end(), piece) - vocab_.begin(); }

  double SymbolCount(const std::string& piece) const {
    double n = 0;
    for (const auto& [pieces, count] : words_) n += count * std::count(pieces.begin(), pieces.end(), piece);
    return n;
  }

  Words Merged(const std::pair<std::string, std::string>& pair) const {
    Words out;
    for (const auto& [pieces, count] : words_) {
      std::vector<std::string> merged;
      for (size_t i = 0; i < pieces.size(); ++i) {
        if (i + 1 < pieces.size() && pieces[i] == pair.first && pieces[i + 1] == pair.second) {
          merged.push_back(pair.first + pair.second.substr(2));
          ++i;
        } else {
          merged.push_back(pieces[i]);
        }
      }
      out.push_back({merged, count});
    }
    return out;
  }

  // Σ count(s) log(count(s) / total) over the symbols of every word.
  static double LogLikelihood(const Words& words) {
    std::map<std::string, double> counts;
    double total = 0;
    for (const auto& [pieces, count] : words) {
      for (const std::string& p : pieces) counts[p] += count, total += count;
    }
    double sum = 0;
    for (const auto& [piece, count] : counts) sum += count * std::log(count / total);
    return sum;
  }

  WordPieceCriterion criterion_;
  Words words_;
  std::vector<std::string> vocab_;
};

std::vector<WordCount> RandomWords(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<WordCount> words;
  std::map<std::string, bool> seen;
  while (words.size() < 40) {
    std::string word;
    const int length = 1 + static_cast<int>(rng() % 7);
    for (int i = 0; i < length; ++i) word += "abcde"[rng() % (i % 2 == 0 ? 3 : 5)];
    if (seen[word]) continue;
    seen[word] = true;
    words.push_back({word, 1 + rng() % 30});
  }
  return words;
}

TEST(WordPieceTrainerTest, EachCriterionEqualsTheBruteForceReference) {
  for (WordPieceCriterion criterion :
       {WordPieceCriterion::kBpe, WordPieceCriterion::kRatio, WordPieceCriterion::kLikelihood}) {
    for (uint32_t seed = 1; seed <= 30; ++seed) {
      const std::vector<WordCount> words = RandomWords(seed);
      const size_t size = 5 + 10 + 40;  // specials, 5 letters in 2 forms, 40 merges at most
      absl::StatusOr<std::vector<std::string>> vocab =
          TrainWordPieceVocab(words, {.vocab_size = size, .criterion = criterion});
      ASSERT_TRUE(vocab.ok()) << vocab.status();
      Reference reference(words, criterion);
      EXPECT_EQ(*vocab, reference.Train(size)) << "criterion " << static_cast<int>(criterion) << " seed " << seed;
    }
  }
}

// Hugging Face's NLP course, chapter 6.6: "hug" 10, "pug" 5, "pun" 12, "bun" 4, "hugs" 5; with the ratio score
// the first merge is ("##g", "##s") -> "##gs" (5 / (20 · 5)). Then ("b", "##u") and ("h", "##u") tie at 1/36
// and the smaller ids win: "bu". By count (BPE), ("##u", "##g") comes first (20 times).
TEST(WordPieceTrainerTest, HuggingFaceCourseExample) {
  const std::vector<WordCount> words = {{"hug", 10}, {"pug", 5}, {"pun", 12}, {"bun", 4}, {"hugs", 5}};
  const size_t base = 5 + 2 * 7;  // b g h n p s u
  absl::StatusOr<std::vector<std::string>> ratio =
      TrainWordPieceVocab(words, {.vocab_size = base + 2, .criterion = WordPieceCriterion::kRatio});
  ASSERT_TRUE(ratio.ok()) << ratio.status();
  EXPECT_THAT(std::vector<std::string>(ratio->begin() + base, ratio->end()), ElementsAre("##gs", "bu"));
  absl::StatusOr<std::vector<std::string>> bpe =
      TrainWordPieceVocab(words, {.vocab_size = base + 1, .criterion = WordPieceCriterion::kBpe});
  ASSERT_TRUE(bpe.ok());
  EXPECT_EQ(bpe->back(), "##ug");
  EXPECT_EQ((*bpe)[5], "b");
  EXPECT_EQ((*bpe)[12], "##b");
}

std::string CorpusFile() {
  const std::string path = ::testing::TempDir() + "/wordpiece_corpus.txt";
  std::string text;
  for (const char* name : {"botchan.txt", "wikitext2-valid.txt"}) {
    absl::StatusOr<std::string> part = ReadFile(std::string(TOKVEC_SHARED_DIR) + "/corpora/" + name);
    if (part.ok()) text += part->substr(0, 200000);
  }
  if (text.empty()) {
    std::printf("[ note ] ../shared/corpora absent: a generated text\n");
    for (int i = 0; i < 3000; ++i) text += "The lowest newer wider 東京 lower newest, widest! Café naïve\n";
  }
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

TEST(WordPieceTrainerTest, WritesTheBertLayoutAndEncodesWithIt) {
  const std::string corpus = CorpusFile();
  WordPieceReport report;
  absl::StatusOr<std::string> json = TrainWordPiece({corpus}, {.vocab_size = 3000, .threads = 1}, &report);
  ASSERT_TRUE(json.ok()) << json.status();
  const nlohmann::json j = nlohmann::json::parse(*json);
  const nlohmann::json& vocab = j["model"]["vocab"];
  EXPECT_EQ(vocab.size(), 3000u);
  EXPECT_EQ(j["model"]["type"], "WordPiece");
  EXPECT_EQ(vocab["[PAD]"], 0);
  EXPECT_EQ(vocab["[UNK]"], 1);
  EXPECT_EQ(vocab["[CLS]"], 2);
  EXPECT_EQ(vocab["[SEP]"], 3);
  EXPECT_EQ(vocab["[MASK]"], 4);
  EXPECT_LT(vocab["a"].get<size_t>(), 5 + report.alphabet);
  EXPECT_GE(vocab["##a"].get<size_t>(), 5 + report.alphabet);
  EXPECT_LT(vocab["##a"].get<size_t>(), 5 + report.alphabet + report.continuing_forms);
  EXPECT_TRUE(vocab.contains(","));
  EXPECT_FALSE(vocab.contains("##,")) << "punctuation is always a word of its own";
  EXPECT_EQ(j["normalizer"]["type"], "BertNormalizer");
  EXPECT_TRUE(j["normalizer"]["lowercase"].get<bool>());
  EXPECT_EQ(j["pre_tokenizer"]["type"], "BertPreTokenizer");
  EXPECT_EQ(report.merges + report.alphabet + report.continuing_forms + 5, 3000u);

  const std::string path = ::testing::TempDir() + "/wordpiece.json";
  ASSERT_TRUE(WriteFileAtomically(path, *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoded = (*tokenizer)->Encode("The Cat sat, on the mat.", {.add_special_tokens = true});
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  ASSERT_GE(encoded->ids.size(), 8u);
  EXPECT_EQ(encoded->ids.front(), 2u);  // [CLS]
  EXPECT_EQ(encoded->ids.back(), 3u);   // [SEP]
  EXPECT_EQ(std::count(encoded->ids.begin(), encoded->ids.end(), 1u), 0) << "no [UNK] in plain English";
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoded->ids, {.skip_special_tokens = true});
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, "the cat sat, on the mat.");

  // Threads do not change a byte; --cased keeps case.
  absl::StatusOr<std::string> two = TrainWordPiece({corpus}, {.vocab_size = 3000, .threads = 2});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, *json);
  absl::StatusOr<std::string> cased = TrainWordPiece({corpus}, {.vocab_size = 3000, .lowercase = false});
  ASSERT_TRUE(cased.ok());
  EXPECT_TRUE(nlohmann::json::parse(*cased)["model"]["vocab"].contains("T"));
  EXPECT_FALSE(vocab.contains("T"));
}

TEST(WordPieceTrainerTest, LimitAlphabetKeepsTheMostFrequentCharacters) {
  const std::vector<WordCount> words = {{"aab", 10}, {"abc", 3}, {"xyz", 1}};
  WordPieceReport report;
  absl::StatusOr<std::vector<std::string>> vocab =
      TrainWordPieceVocab(words, {.vocab_size = 5 + 6, .limit_alphabet = 3}, &report);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(std::vector<std::string>(vocab->begin() + 5, vocab->end()),
              ElementsAre("a", "b", "c", "##a", "##b", "##c"));
  EXPECT_EQ(report.dropped_words, 1u);  // "xyz"
}

// Punctuation and CJK ideographs (words of their own after BERT's pre-tokenizer and normalizer) get no ## form;
// kana and letters get both.
TEST(WordPieceTrainerTest, IsolatedCharactersHaveNoContinuingForm) {
  const std::vector<WordCount> words = {{"東", 4}, {"京", 3}, {"です", 2}, {"ab", 5}, {"!", 2}};
  WordPieceReport report;
  absl::StatusOr<std::vector<std::string>> vocab = TrainWordPieceVocab(words, {.vocab_size = 5 + 11}, &report);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(std::vector<std::string>(vocab->begin() + 5, vocab->end()),
              ElementsAre("!", "a", "b", "す", "で", "京", "東", "##a", "##b", "##す", "##で"));
  EXPECT_EQ(report.continuing_forms, 4u);
}

TEST(WordPieceTrainerTest, Errors) {
  const std::string corpus = CorpusFile();
  auto error = [](const std::vector<std::string>& paths, WordPieceOptions options) {
    absl::StatusOr<std::string> json = TrainWordPiece(paths, options);
    return json.ok() ? std::string("ok") : std::string(json.status().message());
  };
  EXPECT_THAT(error({corpus}, {.vocab_size = 20}), HasSubstr("is smaller than the"));
  EXPECT_THAT(error({corpus}, {.extra_special_tokens = {"[CLS]"}}), HasSubstr("'[CLS]' is given twice"));
  EXPECT_THAT(error({corpus}, {.extra_special_tokens = {""}}), HasSubstr("a special token is empty"));
  EXPECT_THAT(error({corpus}, {.extra_special_tokens = {"##e"}}), HasSubstr("special token '##e' is also a piece"));
  const std::string empty = ::testing::TempDir() + "/wordpiece_empty.txt";
  ASSERT_TRUE(WriteFileAtomically(empty, " \n\t\n").ok());
  EXPECT_THAT(error({empty}, {}), HasSubstr("no text to learn from"));
  const std::string bad = ::testing::TempDir() + "/wordpiece_bad.txt";
  ASSERT_TRUE(WriteFileAtomically(bad, "ok \xFF\xFE bad\n").ok());
  EXPECT_THAT(error({bad}, {}), HasSubstr("wordpiece_bad.txt"));
}

}  // namespace
}  // namespace tokvec
