// The TokenizerModel behind each kind of tokenizer (tokenizer/models/tokenizer_model.h, model_factory.h): the
// factory gives the kind the file says, and what the model answers on its own agrees with what the Tokenizer
// facade does with it (encode of pieces without a normalizer, spellings, gaps, decode of byte tokens), on real
// files: GPT-2's ranks, BERT- and T5-style tokenizer.json files made by Hugging Face, a Llama-style one, and a
// word model trained here.
#include "tokenizer/models/tokenizer_model.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenizer/models/model_factory.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/tokenizer_trainer.h"

namespace tokvec {
namespace {

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name; }

std::unique_ptr<Tokenizer> Load(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(path);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

std::unique_ptr<Tokenizer> TrainedWordModel() {
  absl::StatusOr<TokenizerTrainer> trainer = TokenizerTrainer::Create({.type = ModelType::kWord, .merges = 8});
  EXPECT_TRUE(trainer.ok()) << trainer.status();
  EXPECT_TRUE(trainer->CountText("low lower lowest newer newest wider low low", "seed").ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = std::move(*trainer).Train();
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

// Every id the model has: its spelling is the tokenizer's (special tokens aside), and a gap (but a word model's
// `<unk>`, which decodes to nothing) is an error to decode, a token is not.
void ExpectSpellingsAndGapsAgree(const Tokenizer& tokenizer) {
  const TokenizerModel& model = tokenizer.model();
  ASSERT_LE(model.size(), tokenizer.vocab_size());
  for (TokenId id = 0; id < model.size(); ++id) {
    if (tokenizer.FindSpecial(tokenizer.TokenSpelling(id)) == id) continue;
    EXPECT_EQ(model.Spelling(id), tokenizer.TokenSpelling(id)) << id;
    // FindSpelling inverts Spelling (up to tokens spelled alike).
    if (!model.IsGap(id)) {
      std::optional<TokenId> found = model.FindSpelling(model.Spelling(id));
      ASSERT_TRUE(found.has_value()) << id << " " << model.Spelling(id);
      EXPECT_EQ(model.Spelling(*found), model.Spelling(id)) << id;
    }
    const auto& unreachable = tokenizer.spec().unreachable_tokens;
    if (std::any_of(unreachable.begin(), unreachable.end(), [&](const UnreachableToken& u) { return u.id == id; }) ||
        model.Spelling(id) == "<unk>") {
      continue;
    }
    EXPECT_EQ(tokenizer.Decode({id}).ok(), !model.IsGap(id)) << id;
  }
  EXPECT_TRUE(model.IsGap(static_cast<TokenId>(model.size())));
}

TEST(TokenizerModelTest, ByteLevelFromTiktokenRanks) {
  const std::string path = std::string(TOKVEC_SHARED_DIR) + "/vocab/gpt2.tiktoken";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found (the shared data)";
  std::unique_ptr<Tokenizer> gpt2 = Load(path);
  ASSERT_NE(gpt2, nullptr);
  EXPECT_EQ(gpt2->model().type(), ModelType::kByte);
  EXPECT_EQ(ModelTypeName(gpt2->model().type()), "byte");
  ASSERT_EQ(gpt2->byte_level(), &gpt2->model());
  EXPECT_EQ(gpt2->model().size(), 50256u);  // <|endoftext|> (50256) is a special token
  EXPECT_TRUE(gpt2->model().utf8_name().empty());
  EXPECT_FALSE(gpt2->model().SpelledTokens());
  // No normalizer: the model's ids of the pre-tokenizer's pieces are the tokenizer's.
  const std::string text = "Hello world, it's 2026!\n  tokvec's ids";
  std::vector<Piece> pieces;
  ASSERT_TRUE(gpt2->spec().pre_tokenizer->Split(text, &pieces).ok());
  std::vector<TokenId> ids;
  std::vector<Offset> offsets;
  ASSERT_TRUE(gpt2->model().EncodePieces(text, pieces, 0, {&ids, &offsets}).ok());
  absl::StatusOr<Encoding> encoding = gpt2->Encode(text);
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  EXPECT_EQ(ids, encoding->ids);
  ASSERT_EQ(offsets.size(), encoding->offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    EXPECT_EQ(offsets[i].begin, encoding->offsets[i].begin) << i;
    EXPECT_EQ(offsets[i].end, encoding->offsets[i].end) << i;
  }
  EXPECT_EQ(ids.front(), 15496u);  // "Hello"
  // Byte tokens decode to their bytes.
  std::string decoded;
  for (TokenId id : ids) ASSERT_TRUE(gpt2->model().AppendDecoded(id, &decoded));
  EXPECT_EQ(decoded, text);
  EXPECT_EQ(gpt2->model().TokenBytes(995), " world");
  EXPECT_EQ(gpt2->model().Spelling(995), "Ġworld");
  ExpectSpellingsAndGapsAgree(*gpt2);
}

TEST(TokenizerModelTest, WordPieceUnigramCodePointAndWordLevelFiles) {
  struct Case {
    std::string file;
    ModelType type;
    std::string utf8_name;
  };
  for (const Case& c : {Case{"wordpiece/uncased.json", ModelType::kWordPiece, "WordPiece"},
                        Case{"unigram/nmt-always.json", ModelType::kUnigram, "Unigram"},
                        Case{"spm_bpe/llama.json", ModelType::kChar, "char"},
                        Case{"legacy/wordlevel-bert-words.json", ModelType::kWordLevel, "WordLevel"}}) {
    SCOPED_TRACE(c.file);
    std::unique_ptr<Tokenizer> tokenizer = Load(DataPath(c.file));
    ASSERT_NE(tokenizer, nullptr);
    EXPECT_EQ(tokenizer->model().type(), c.type);
    EXPECT_EQ(tokenizer->type(), c.type);
    EXPECT_EQ(tokenizer->byte_level(), nullptr);
    EXPECT_EQ(tokenizer->model().utf8_name(), c.utf8_name);
    EXPECT_TRUE(tokenizer->model().SpelledTokens());
    EXPECT_EQ(tokenizer->model().CutsNormalizedText(), c.type == ModelType::kWordPiece);
    EXPECT_TRUE(tokenizer->model().TokenBytes(0).empty());
    std::string text;
    EXPECT_FALSE(tokenizer->model().AppendDecoded(0, &text));  // spelled tokens go through the decoder chain
    ExpectSpellingsAndGapsAgree(*tokenizer);
    // A model of code points refuses bytes that are not UTF-8, naming itself.
    absl::StatusOr<Encoding> bad = tokenizer->Encode("ok \xFF");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(std::string(bad.status().message()).find(c.utf8_name + " models need UTF-8 text"), std::string::npos)
        << bad.status();
  }
}

TEST(TokenizerModelTest, WordModelSpellsEndOfWordAndDecodesWords) {
  std::unique_ptr<Tokenizer> words = TrainedWordModel();
  ASSERT_NE(words, nullptr);
  EXPECT_EQ(words->model().type(), ModelType::kWord);
  EXPECT_EQ(words->byte_level(), nullptr);
  EXPECT_FALSE(words->model().SpelledTokens());
  absl::StatusOr<Encoding> encoding = words->Encode("lower newest");
  ASSERT_TRUE(encoding.ok()) << encoding.status();
  std::string decoded;
  for (TokenId id : encoding->ids) ASSERT_TRUE(words->model().AppendDecoded(id, &decoded));
  EXPECT_EQ(decoded, "lower newest ");  // each `</w>` a space ...
  words->model().FinishDecoded(encoding->ids, &decoded);
  EXPECT_EQ(decoded, "lower newest");  // ... but the last
  EXPECT_EQ(words->model().Spelling(encoding->ids.back()).substr(words->model().Spelling(encoding->ids.back()).size() - 4),
            "</w>");
  ExpectSpellingsAndGapsAgree(*words);
}

TEST(TokenizerModelTest, FactoryBuildsEachKindAndChecksWhatItNeeds) {
  absl::StatusOr<BpeModel> bpe = BpeModel::FromMerges({"a", "b", "ab"}, {{0, 1}});
  ASSERT_TRUE(bpe.ok()) << bpe.status();
  const std::optional<BpeAffixes> no_affixes;
  const std::optional<BpeAffixes> affixes = BpeAffixes{.prefix = "##"};
  const std::vector<UnreachableToken> none;
  const CharBpeOptions char_options;
  const ByteBpeTokenizerModel* byte_level = nullptr;
  std::unique_ptr<TokenizerModel> byte = MakeTokenizerModel(
      {.type = ModelType::kByte, .bpe = &*bpe, .affixes = &no_affixes, .unreachable = &none}, &byte_level);
  ASSERT_NE(byte, nullptr);
  EXPECT_EQ(byte_level, byte.get());
  EXPECT_TRUE(byte->Check(3, false).ok());
  // A word model needs `</w>` and `<unk>`; none of the kinds but byte and code-point BPE takes word affixes.
  std::unique_ptr<TokenizerModel> word = MakeTokenizerModel(
      {.type = ModelType::kWord, .bpe = &*bpe, .affixes = &no_affixes}, &byte_level);
  EXPECT_EQ(byte_level, nullptr);
  EXPECT_EQ(word->Check(3, false).message(), "word model has no end-of-word token `</w>`");
  std::unique_ptr<TokenizerModel> affixed_word = MakeTokenizerModel(
      {.type = ModelType::kWord, .bpe = &*bpe, .unk_id = 0, .end_of_word_id = 1, .affixes = &affixes});
  EXPECT_EQ(affixed_word->Check(3, false).message(),
            "word affixes (continuing_subword_prefix, end_of_word_suffix) need a BPE model");
  // A code-point model needs a decoder chain.
  std::unique_ptr<TokenizerModel> chars = MakeTokenizerModel(
      {.type = ModelType::kChar, .bpe = &*bpe, .char_bpe = &char_options, .affixes = &no_affixes});
  EXPECT_EQ(chars->Check(3, false).message(), "char model has no decoder");
  EXPECT_TRUE(chars->Check(3, true).ok());
}

}  // namespace
}  // namespace tokvec
