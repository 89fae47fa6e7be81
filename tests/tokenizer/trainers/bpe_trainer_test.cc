#include "tokenizer/trainers/bpe_trainer.h"

#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tokenizer/reference_bpe_trainer_testutil.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::string_literals;

// "left right" spellings of the learned merges, `</w>` spelled out.
std::vector<std::string> MergeLines(const TrainedBpe& trained) {
  std::vector<std::string> lines;
  for (const auto& merge : trained.merges) {
    lines.push_back(TrainerSpelling(trained.type, trained.tokens[merge.left]) + " " +
                    TrainerSpelling(trained.type, trained.tokens[merge.right]));
  }
  return lines;
}

std::vector<WordCount> CountText(std::string_view text) {
  WhitespacePreTokenizer pre_tokenizer;
  WordCounterOptions options;
  options.pre_tokenizer = &pre_tokenizer;
  options.require_utf8 = true;
  return *CountWordsInText(text, options);
}

// The seed example of the foundation issue: the published walk-through of "low lower newest wider".
TEST(BpeTrainerTest, SeedExampleLearnsPublishedMerges) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 4;
  absl::StatusOr<TrainedBpe> trained = TrainBpe(CountText("low lower newest wider"), options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_THAT(MergeLines(*trained), ElementsAre("e r", "er </w>", "l o", "lo w"));
  EXPECT_EQ(trained->note, "");
}

TEST(BpeTrainerTest, SeedExampleEncodesAsPublished) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 4;
  absl::StatusOr<TrainedBpe> trained = TrainBpe(CountText("low lower newest wider"), options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      MakeTrainedTokenizer(std::move(*trained), std::make_unique<WhitespacePreTokenizer>(), nullptr);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode("low lower newest wider");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  std::string tokens;
  for (TokenId id : encoding->ids) tokens += (tokens.empty() ? "" : " ") + (*tokenizer)->TokenSpelling(id);
  EXPECT_EQ(tokens, "low </w> low er</w> n e w e s t </w> w i d er</w>");
}

// Sennrich et al. (2016), https://arxiv.org/abs/1508.07909, the dictionary of section 3.2.
TEST(BpeTrainerTest, SennrichDictionaryExample) {
  std::vector<WordCount> words = {{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}};
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 10;
  absl::StatusOr<TrainedBpe> trained = TrainBpe(words, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_THAT(MergeLines(*trained), ElementsAre("e s", "es t", "est </w>", "l o", "lo w", "e w", "ew est</w>",
                                                "n ewest</w>", "low </w>", "d est</w>"));
}

// Wikipedia's "Byte pair encoding" example: aaabdaaabac -> ZabdZabac -> ZYdZYac -> XdXac.
TEST(BpeTrainerTest, WikipediaExampleForByteModel) {
  BpeTrainerOptions options;
  options.type = ModelType::kByte;
  options.merges = 3;
  absl::StatusOr<TrainedBpe> trained = TrainBpe({{"aaabdaaabac", 1}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_THAT(MergeLines(*trained), ElementsAre("a a", "a b", "aa ab"));
  // Ids: the 256 bytes, then merged tokens in merge order.
  EXPECT_EQ(trained->tokens.size(), 259u);
  EXPECT_EQ(trained->tokens['a'], "a");
  EXPECT_EQ(trained->tokens[256], "aa");
  EXPECT_EQ(trained->tokens[258], "aaab");
}

TEST(BpeTrainerTest, IdLayoutSpecialsUnkEndOfWordAlphabetMerges) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 1;
  options.special_tokens = {"<s>", "</s>"};
  absl::StatusOr<TrainedBpe> trained = TrainBpe({{"ba", 3}, {"é", 1}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  ASSERT_EQ(trained->special_tokens.size(), 2u);
  EXPECT_EQ(trained->special_tokens[0].id, 0u);
  EXPECT_EQ(trained->special_tokens[1].id, 1u);
  EXPECT_EQ(trained->unk_id, 2u);
  EXPECT_EQ(trained->end_of_word_id, 3u);
  EXPECT_THAT(trained->tokens, ElementsAre("", "", "", "\xFF", "a", "b", "é", "a\xFF"));
}

TEST(BpeTrainerTest, VocabSizeCountsEveryId) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.vocab_size = 8;
  options.special_tokens = {"<s>"};
  absl::StatusOr<TrainedBpe> trained = TrainBpe({{"abcd", 3}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  // <s> <unk> </w> a b c d = 7 ids, so one merge.
  EXPECT_EQ(trained->tokens.size(), 8u);
  EXPECT_EQ(trained->merges.size(), 1u);
}

TEST(BpeTrainerTest, StopsEarlyWithNoteWhenNoPairIsLeft) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 100;
  absl::StatusOr<TrainedBpe> trained = TrainBpe({{"ab", 1}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_EQ(trained->merges.size(), 2u);  // a b, ab </w>
  EXPECT_THAT(trained->note, HasSubstr("no pair of symbols is left"));
}

TEST(BpeTrainerTest, MinFrequencyStops) {
  BpeTrainerOptions options;
  options.type = ModelType::kWord;
  options.merges = 100;
  options.min_frequency = 3;
  absl::StatusOr<TrainedBpe> trained = TrainBpe({{"ab", 3}, {"cd", 2}}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  EXPECT_THAT(MergeLines(*trained), ElementsAre("a b", "ab </w>"));
  EXPECT_THAT(trained->note, HasSubstr("fewer than the minimum frequency 3"));
}

TEST(BpeTrainerTest, Errors) {
  BpeTrainerOptions both;
  both.type = ModelType::kWord;
  both.merges = 1;
  both.vocab_size = 10;
  EXPECT_EQ(TrainBpe({{"ab", 1}}, both).status().code(), absl::StatusCode::kInvalidArgument);
  BpeTrainerOptions small;
  small.type = ModelType::kWord;
  small.vocab_size = 4;
  absl::Status status = TrainBpe({{"abc", 1}}, small).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("use a vocabulary size of at least 5"));
  BpeTrainerOptions byte_small;
  byte_small.type = ModelType::kByte;
  byte_small.vocab_size = 255;
  EXPECT_THAT(std::string(TrainBpe({{"abc", 1}}, byte_small).status().message()), HasSubstr("at least 256"));
  BpeTrainerOptions twice;
  twice.type = ModelType::kWord;
  twice.merges = 1;
  twice.special_tokens = {"<s>", "<s>"};
  EXPECT_THAT(std::string(TrainBpe({{"ab", 1}}, twice).status().message()), HasSubstr("'<s>' is given twice"));
  BpeTrainerOptions unk;
  unk.type = ModelType::kWord;
  unk.merges = 1;
  unk.special_tokens = {"<unk>"};
  EXPECT_THAT(std::string(TrainBpe({{"ab", 1}}, unk).status().message()), HasSubstr("reserved"));
  BpeTrainerOptions word;
  word.type = ModelType::kWord;
  word.merges = 1;
  EXPECT_THAT(std::string(TrainBpe({{"a\xC3", 1}}, word).status().message()), HasSubstr("invalid UTF-8 at byte 1"));
}

// Random small corpora: few symbols so ties and repeats (`aaaa`) are frequent; non-ASCII and `<`, `/`, `w`, `>`
// so that a literal "</w>" competes with the end-of-word symbol in the tie-break.
std::vector<WordCount> RandomCorpus(std::mt19937& rng, ModelType type) {
  static const std::vector<std::string> kWordPieces = {"a", "a", "b", "c", "é", "日", "<", "/", "w", ">",
                                                       "\xF0\x9F\x98\x80", "</w>", "</w>"};
  static const std::vector<std::string> kBytePieces = {"a", "a", "b", " ", "\xC3", "\xA9", "\xFF", "\x00"s};
  const auto& pieces = type == ModelType::kWord ? kWordPieces : kBytePieces;
  std::vector<WordCount> words;
  std::set<std::string> seen;
  const int n = std::uniform_int_distribution<int>(1, 12)(rng);
  for (int i = 0; i < n; ++i) {
    std::string word;
    const int length = std::uniform_int_distribution<int>(1, 7)(rng);
    for (int j = 0; j < length; ++j) word += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(rng)];
    if (!seen.insert(word).second) continue;
    words.push_back({word, std::uniform_int_distribution<uint64_t>(1, 4)(rng)});
  }
  return words;
}

TEST(BpeTrainerTest, MatchesBruteForceReferenceOnRandomCorpora) {
  for (ModelType type : {ModelType::kWord, ModelType::kByte}) {
    for (uint32_t seed = 0; seed < 300; ++seed) {
      std::mt19937 rng(seed);
      std::vector<WordCount> words = RandomCorpus(rng, type);
      const size_t max_merges = std::uniform_int_distribution<size_t>(0, 40)(rng);
      const uint64_t min_frequency = std::uniform_int_distribution<uint64_t>(0, 3)(rng);
      BpeTrainerOptions options;
  options.type = type;
  options.merges = max_merges;
  options.min_frequency = min_frequency;
      absl::StatusOr<TrainedBpe> trained = TrainBpe(words, options);
      ASSERT_TRUE(trained.ok()) << trained.status();
      std::vector<ReferenceMerge> reference = ReferenceTrainBpe(words, type, max_merges, min_frequency);
      std::vector<ReferenceMerge> actual;
      for (const auto& merge : trained->merges) {
        actual.push_back({trained->tokens[merge.left], trained->tokens[merge.right]});
      }
      ASSERT_EQ(actual, reference) << "seed " << seed << " type " << (type == ModelType::kWord ? "word" : "byte")
                                   << "\nactual:   " << testing::PrintToString(MergeLines(*trained));
      // Every spelling has one id; a merge adds an id unless its result already had one.
      std::set<std::string> distinct;
      for (const std::string& token : trained->tokens) {
        if (token.empty()) continue;
        ASSERT_TRUE(distinct.insert(token).second) << "seed " << seed;
      }
      EXPECT_EQ(trained->tokens.size(), distinct.size() + (type == ModelType::kWord ? 1 : 0))
          << "seed " << seed;  // Every id but <unk> has a spelling.
    }
  }
}

// Big merge steps run on several threads; the merges and ids must not depend on the thread count.
TEST(BpeTrainerTest, SameResultForAnyThreadCount) {
  std::mt19937 rng(11);
  std::vector<WordCount> words;
  std::set<std::string> seen;
  const std::string letters = "abcdefghij";
  while (words.size() < 30000) {
    std::string word;
    const int length = std::uniform_int_distribution<int>(1, 12)(rng);
    for (int j = 0; j < length; ++j) word += letters[std::uniform_int_distribution<size_t>(0, 9)(rng)];
    if (seen.insert(word).second) words.push_back({word, std::uniform_int_distribution<uint64_t>(1, 50)(rng)});
  }
  for (ModelType type : {ModelType::kWord, ModelType::kByte}) {
    std::vector<std::string> first;
    for (size_t threads : {1, 2, 4}) {
      BpeTrainerOptions options;
      options.type = type;
      options.vocab_size = 2000;
      options.threads = threads;
      absl::StatusOr<TrainedBpe> trained = TrainBpe(words, options);
      ASSERT_TRUE(trained.ok()) << trained.status();
      if (first.empty()) first = trained->tokens;
      EXPECT_EQ(trained->tokens, first) << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace tokvec
