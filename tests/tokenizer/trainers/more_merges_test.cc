// Continuing BPE training on an existing tokenizer (tokenizer/trainers/more_merges.h, `tokvec extend
// --more-merges`): training M merges then continuing N more learns exactly the M + N merges of one run; every old id,
// token and merge stays; text keeps its ids wherever no new token applies; the result does not depend on threads.
// Hugging Face's ids on the extended files are checked by `make conformance` (extended/*-merges).
#include "tokenizer/trainers/more_merges.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/models/bpe/recover_merges.h"
#include "tokenizer/trainers/tokenizer_trainer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/more_merges_" + name; }

// `text` written to a temporary file (its path).
std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

// A corpus for the tests: a slice of a shared corpus, else a text made here.
std::string Corpus(const std::string& name, size_t bytes) {
  absl::StatusOr<std::string> text = ReadFile(std::string(TOKVEC_SHARED_DIR) + "/corpora/" + name);
  if (text.ok()) return text->substr(0, bytes);
  std::printf("[ note ] ../shared/corpora/%s absent: a generated text\n", name.c_str());
  std::string out;
  for (size_t i = 0; out.size() < bytes; ++i) {
    out += "the lowest newer wider " + std::to_string(i % 97) + " lower newest, widest! ";
  }
  return out;
}

struct Continued {
  std::unique_ptr<Tokenizer> before, after;
  MoreMergesReport report;
};

Continued Continue(const std::string& model, const std::vector<std::string>& files, MoreMergesOptions options) {
  Continued out;
  absl::StatusOr<std::unique_ptr<Tokenizer>> before = Tokenizer::Load(model);
  EXPECT_TRUE(before.ok()) << before.status();
  absl::StatusOr<TokenizerSpec> spec = Tokenizer::LoadSpec(model, {});
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<MoreMergesReport> report = AddMoreMerges(files, options, **before, &*spec);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return out;
  absl::StatusOr<std::unique_ptr<Tokenizer>> after = Tokenizer::Create(*std::move(spec));
  EXPECT_TRUE(after.ok()) << after.status();
  out.before = *std::move(before);
  out.after = *std::move(after);
  out.report = *report;
  return out;
}

// A byte model trained from scratch on `file` with `merges` merges, saved as a tokvec model file (its path).
std::string TrainByteModel(const std::string& file, size_t merges, const std::string& name) {
  absl::StatusOr<TokenizerTrainer> trainer = TokenizerTrainer::Create({.type = ModelType::kByte, .merges = merges});
  EXPECT_TRUE(trainer.ok()) << trainer.status();
  EXPECT_TRUE(trainer->CountFiles({file}).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = std::move(*trainer).Train();
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  const std::string path = TempPath(name + ".tokvec");
  EXPECT_TRUE(SaveTokvecModel(**tokenizer, path).ok());
  return path;
}

const BpeModel& BpeOf(const Tokenizer& tokenizer) { return tokenizer.spec().bpe; }

// Training M merges and continuing N more gives the M + N merges of one run on the same text (the rule, ties
// included, does not depend on where training paused).
TEST(MoreMergesTest, ContinuingEqualsTrainingInOneRun) {
  const std::string corpus = WriteTemp("one_run.txt", Corpus("tinyshakespeare.txt", 400000));
  const std::string whole = TrainByteModel(corpus, 700, "whole");
  const std::string first = TrainByteModel(corpus, 300, "first");
  Continued c = Continue(first, {corpus}, {.merges = 400});
  ASSERT_TRUE(c.after);
  absl::StatusOr<std::unique_ptr<Tokenizer>> expected = Tokenizer::Load(whole);
  ASSERT_TRUE(expected.ok());
  const BpeModel& want = BpeOf(**expected);
  const BpeModel& got = BpeOf(*c.after);
  EXPECT_EQ(c.report.old_merges, 300u);
  EXPECT_EQ(c.report.new_merges, 400u);
  ASSERT_EQ(got.merges().size(), want.merges().size());
  for (size_t r = 0; r < want.merges().size(); ++r) {
    ASSERT_EQ(got.token(got.merges()[r].left) + "|" + got.token(got.merges()[r].right),
              want.token(want.merges()[r].left) + "|" + want.token(want.merges()[r].right))
        << "merge " << r;
  }
  EXPECT_EQ(got.tokens(), want.tokens());
}

// gpt2.tiktoken (a rank model) continued on Japanese text: old ids and tokens in place, the old merges first (the
// recovered list), new ids after <|endoftext|>; English text keeps its ids line by line unless a new token applies,
// and the Japanese text needs fewer tokens. Threads do not change the result.
TEST(MoreMergesTest, Gpt2ContinuedOnJapaneseKeepsEveryOldId) {
  const std::optional<std::string> gpt2 = testing::SharedVocabPath("gpt2.tiktoken");
  if (!gpt2) GTEST_SKIP() << "../shared/vocab/gpt2.tiktoken absent";
  const std::string japanese = Corpus("wagahaiwa_nekodearu.txt", 300000);
  const std::string path = WriteTemp("ja.txt", japanese);
  Continued c = Continue(*gpt2, {path}, {.merges = 500, .threads = 1});
  ASSERT_TRUE(c.after);
  EXPECT_EQ(c.report.old_ids, 50257u);
  EXPECT_EQ(c.report.new_merges, 500u);
  EXPECT_EQ(c.after->vocab_size(), 50257u + c.report.new_tokens);
  const BpeModel& old_bpe = BpeOf(*c.before);
  const BpeModel& new_bpe = BpeOf(*c.after);
  for (TokenId id = 0; id < old_bpe.size(); ++id) ASSERT_EQ(new_bpe.token(id), old_bpe.token(id)) << id;
  const std::vector<BpeModel::MergePair> recovered = RecoverMerges(old_bpe);
  ASSERT_EQ(c.report.old_merges, recovered.size());
  for (size_t r = 0; r < recovered.size(); ++r) {
    ASSERT_TRUE(new_bpe.merges()[r].left == recovered[r].left && new_bpe.merges()[r].right == recovered[r].right)
        << r;
  }
  EXPECT_EQ(c.after->FindSpecial("<|endoftext|>"), c.before->FindSpecial("<|endoftext|>"));

  // Line by line: the same ids, or a new id among them.
  std::istringstream english(Corpus("wikitext2-valid.txt", 300000) + "\n" + japanese.substr(0, 30000));
  size_t same = 0, changed = 0;
  for (std::string line; std::getline(english, line);) {
    absl::StatusOr<Encoding> a = c.before->Encode(line), b = c.after->Encode(line);
    ASSERT_TRUE(a.ok() && b.ok());
    if (a->ids == b->ids) {
      ++same;
      continue;
    }
    ++changed;
    bool has_new = false;
    for (TokenId id : b->ids) has_new |= id >= c.report.old_ids;
    ASSERT_TRUE(has_new) << "ids changed without a new token: "
                         << testing::DescribeIdMismatch(*c.before, a->ids, b->ids);
    EXPECT_LT(b->ids.size(), a->ids.size());
  }
  EXPECT_GT(changed, 0u);
  absl::StatusOr<Encoding> before_ja = c.before->Encode(japanese), after_ja = c.after->Encode(japanese);
  ASSERT_TRUE(before_ja.ok() && after_ja.ok());
  EXPECT_LT(after_ja->ids.size() * 10, before_ja->ids.size() * 8);  // at least 20% fewer
  std::printf("[ measured ] gpt2 + 500 merges on Japanese: %zu lines unchanged, %zu shorter; Japanese %zu -> %zu ids\n",
              same, changed, before_ja->ids.size(), after_ja->ids.size());

  Continued two = Continue(*gpt2, {path}, {.merges = 500, .threads = 2});
  ASSERT_TRUE(two.after);
  EXPECT_EQ(BpeOf(*two.after).tokens(), new_bpe.tokens());
  ASSERT_EQ(BpeOf(*two.after).merges().size(), new_bpe.merges().size());
  for (size_t r = 0; r < new_bpe.merges().size(); ++r) {
    ASSERT_TRUE(BpeOf(*two.after).merges()[r].left == new_bpe.merges()[r].left &&
                BpeOf(*two.after).merges()[r].right == new_bpe.merges()[r].right)
        << r;
  }
}

// A vocabulary size counts every id; the extended tokenizer.json reads back with the same ids.
TEST(MoreMergesTest, VocabularySizeTargetAndTokenizerJsonRoundTrip) {
  const std::string corpus = WriteTemp("size.txt", Corpus("botchan.txt", 200000));
  const std::string base = TrainByteModel(corpus, 100, "size_base");
  Continued c = Continue(base, {corpus}, {.vocab_size = 500});
  ASSERT_TRUE(c.after);
  EXPECT_EQ(c.after->vocab_size(), 500u);
  absl::StatusOr<std::string> json = WriteHfTokenizerJson(*c.after);
  ASSERT_TRUE(json.ok()) << json.status();
  const std::string json_path = WriteTemp("size.json", *json);
  absl::StatusOr<std::unique_ptr<Tokenizer>> back = Tokenizer::Load(json_path);
  ASSERT_TRUE(back.ok()) << back.status();
  const std::string text = Corpus("botchan.txt", 50000);
  absl::StatusOr<Encoding> a = c.after->Encode(text), b = (*back)->Encode(text);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->ids, b->ids) << testing::DescribeIdMismatch(*c.after, a->ids, b->ids);
}

TEST(MoreMergesTest, Errors) {
  const std::string corpus = WriteTemp("errors.txt", "low lower lowest\n");
  const std::string base = TrainByteModel(corpus, 3, "errors_base");
  auto error = [&](const std::string& model, const std::vector<std::string>& files, MoreMergesOptions options) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> before = Tokenizer::Load(model);
    EXPECT_TRUE(before.ok()) << before.status();
    absl::StatusOr<TokenizerSpec> spec = Tokenizer::LoadSpec(model, {});
    absl::StatusOr<MoreMergesReport> report = AddMoreMerges(files, options, **before, &*spec);
    return report.ok() ? std::string("ok") : std::string(report.status().message());
  };
  EXPECT_THAT(error(base, {corpus}, {}), HasSubstr("give exactly one"));
  EXPECT_THAT(error(base, {corpus}, {.merges = 2, .vocab_size = 300}), HasSubstr("give exactly one"));
  EXPECT_THAT(error(base, {corpus}, {.vocab_size = 259}), HasSubstr("is not above the 259 ids"));
  EXPECT_THAT(error(base, {WriteTemp("empty.txt", "")}, {.merges = 2}), HasSubstr("no pieces"));
  EXPECT_THAT(error(base, {TempPath("missing.txt")}, {.merges = 2}), HasSubstr("missing.txt"));
  const std::string wordpiece = std::string(TOKVEC_SOURCE_DIR) + "/tests/data/wordpiece/uncased.json";
  EXPECT_THAT(error(wordpiece, {corpus}, {.merges = 2}), HasSubstr("continues byte-level BPE"));
}

}  // namespace
}  // namespace tokvec
