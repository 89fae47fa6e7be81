// Unigram tokenizer.json files (tests/data/unigram, made by scripts/gen_unigram_files.mjs from spm_train models,
// goldens by Hugging Face tokenizers 0.23.2), and the parts they are made of: UnigramModel's Viterbi and unknown
// handling, the Precompiled normalizer on malformed blobs, the Metaspace pre-tokenizer's prepend schemes, decode through
// the file's decoder.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/models/unigram/unigram_model.h"
#include "tokenizer/normalizers/precompiled_normalizer.h"
#include "tokenizer/pre_tokenizers/metaspace_pre_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/unigram/" + name; }

std::unique_ptr<Tokenizer> LoadFile(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(name));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

using Strings = std::vector<std::string>;

Strings Spell(const UnigramModel& model, std::string_view word) {
  std::vector<BpeModel::Symbol> symbols;
  absl::Status status = model.Tokenize(word, 0, &symbols);
  EXPECT_TRUE(status.ok()) << status;
  Strings out;
  for (const BpeModel::Symbol& s : symbols) out.push_back(model.token(s.id));
  return out;
}

// Hugging Face matches added tokens always: compare with --allow-special's behaviour.
TEST(UnigramFilesTest, GoldensFromHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  nlohmann::json golden = nlohmann::json::parse(*text);
  ASSERT_GE(golden["cases"].size(), 40u);
  EncodeOptions all;
  all.allow_all_special = true;
  size_t unknowns = 0;
  for (const auto& c : golden["cases"]) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(c["file"].get<std::string>());
    ASSERT_NE(tokenizer, nullptr);
    const std::string input = c["text"].get<std::string>();
    absl::StatusOr<Encoding> encoding = tokenizer->Encode(input, all);
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(encoding->ids, c["ids"].get<std::vector<TokenId>>()) << c["file"] << " " << input;
    // Hugging Face spells an unk token as the text it covers: compare the others.
    const std::vector<std::string> tokens = c["tokens"].get<std::vector<std::string>>();
    ASSERT_EQ(tokens.size(), encoding->ids.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (tokenizer->spec().unigram.unk_id() == encoding->ids[i]) {
        ++unknowns;
      } else {
        EXPECT_EQ(tokenizer->TokenSpelling(encoding->ids[i]), tokens[i]) << c["file"] << " " << input;
      }
    }
    // Offsets stay inside the input and do not go backwards.
    size_t last = 0;
    for (const Offset& offset : encoding->offsets) {
      EXPECT_LE(offset.begin, offset.end);
      EXPECT_LE(offset.end, input.size());
      EXPECT_GE(offset.begin, last) << c["file"] << " " << input;
      last = offset.begin;
    }
  }
  EXPECT_GT(unknowns, 10u) << "the goldens should exercise unknown characters";
}

TEST(UnigramFilesTest, InspectNamesAndSettings) {
  std::unique_ptr<Tokenizer> tokenizer = LoadFile("custom-first.json");
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->type(), ModelType::kUnigram);
  EXPECT_EQ(ModelTypeName(tokenizer->type()), "unigram");
  EXPECT_EQ(tokenizer->spec().unigram.unk_id(), std::optional<TokenId>(3));
  EXPECT_EQ(tokenizer->spec().pre_tokenizer->name(), "whitespace+metaspace(\u2581,first,split)");
  EXPECT_EQ(tokenizer->spec().normalizer->name(), "precompiled");
  // tokvec cannot write Unigram models as tiktoken ranks: a clear refusal (tokenizer.json:
  // tokenizer_json_writer_test.cc).
  absl::StatusOr<std::string> ranks = WriteTiktoken(*tokenizer);
  EXPECT_FALSE(ranks.ok());
  EXPECT_NE(ranks.status().message().find("unigram"), std::string::npos) << ranks.status();
}

// Decode runs the file's decoder (Metaspace with each prepend scheme, legacy add_prefix_space, or Sequence
// [Replace, ByteFallback, Fuse, Strip]; null joins spellings with spaces), control tokens spelled as their text:
// Hugging Face's decode(ids, skip_special_tokens=false) of the goldens' ids and of the hard id lists.
TEST(UnigramFilesTest, DecodeGoldensFromHuggingFace) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("golden.json"));
  ASSERT_TRUE(text.ok()) << text.status();
  nlohmann::json golden = nlohmann::json::parse(*text);
  ASSERT_GE(golden["decode_cases"].size(), 30u);
  auto check = [](const Tokenizer& tokenizer, const nlohmann::json& c) {
    absl::StatusOr<std::string> decoded = tokenizer.Decode(c["ids"].get<std::vector<TokenId>>());
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, c["decoded"].get<std::string>()) << c["file"] << " " << c["ids"].dump();
  };
  size_t without_decoder = 0;
  for (const auto& c : golden["cases"]) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(c["file"].get<std::string>());
    ASSERT_NE(tokenizer, nullptr);
    check(*tokenizer, c);
  }
  for (const auto& c : golden["decode_cases"]) {
    std::unique_ptr<Tokenizer> tokenizer;
    if (c.contains("decoder")) {  // The same file with this decoder (null).
      absl::StatusOr<std::string> file = ReadFile(DataPath(c["file"].get<std::string>()));
      ASSERT_TRUE(file.ok()) << file.status();
      nlohmann::json json = nlohmann::json::parse(*file);
      json["decoder"] = c["decoder"];
      absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(json.dump(), "no-decoder.json");
      ASSERT_TRUE(spec.ok()) << spec.status();
      absl::StatusOr<std::unique_ptr<Tokenizer>> created = Tokenizer::Create(std::move(spec).value());
      ASSERT_TRUE(created.ok()) << created.status();
      tokenizer = std::move(created).value();
      ++without_decoder;
    } else {
      tokenizer = LoadFile(c["file"].get<std::string>());
    }
    ASSERT_NE(tokenizer, nullptr);
    check(*tokenizer, c);
  }
  EXPECT_GT(without_decoder, 5u);
  std::unique_ptr<Tokenizer> tokenizer = LoadFile("nmt-always.json");
  ASSERT_NE(tokenizer, nullptr);
  EXPECT_EQ(tokenizer->spec().token_decoder->name(), "Metaspace(\u2581, first token stripped)");
  EXPECT_FALSE(tokenizer->Decode({static_cast<TokenId>(tokenizer->vocab_size())}).ok());
}

TEST(UnigramFilesTest, InvalidUtf8IsAnErrorNamingTheByte) {
  std::unique_ptr<Tokenizer> tokenizer = LoadFile("nmt-always.json");
  ASSERT_NE(tokenizer, nullptr);
  absl::StatusOr<Encoding> encoding = tokenizer->Encode("ab\xFF");
  ASSERT_FALSE(encoding.ok());
  EXPECT_NE(encoding.status().message().find("byte offset 2"), std::string::npos) << encoding.status();
}

TEST(UnigramFilesTest, ThreadsShareOneTokenizer) {
  std::unique_ptr<Tokenizer> tokenizer = LoadFile("nmt-always.json");
  ASSERT_NE(tokenizer, nullptr);
  const std::string text = "吾輩は猫である。 Hello ☃☃ world, ｆｕｌｌ width.";
  absl::StatusOr<Encoding> expected = tokenizer->Encode(text);
  ASSERT_TRUE(expected.ok());
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        absl::StatusOr<Encoding> encoding = tokenizer->Encode(text);
        same[t] += encoding.ok() && encoding->ids == expected->ids;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(same[t], 50);
}

// The Viterbi: best total score; ties keep the first found (shorter piece first); unknown characters fuse.
TEST(UnigramModelTest, BestSegmentationTiesAndUnknowns) {
  absl::StatusOr<UnigramModel> model = UnigramModel::Create(
      {{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -3}, {"abc", -2.5}, {"c", -1}, {"bc", -1}},
      /*unk_id=*/0, /*byte_fallback=*/false);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(Spell(*model, "ab"), (Strings{"a", "b"}));  // -2 beats -3.
  EXPECT_EQ(Spell(*model, "abc"), (Strings{"a", "bc"}));  // -2 beats abc's -2.5.
  // Two unknown characters fuse into one unk; the unk scores min (-3) - 10 per character.
  std::vector<BpeModel::Symbol> symbols;
  ASSERT_TRUE(model->Tokenize("a☃☃b", 0, &symbols).ok());
  ASSERT_EQ(symbols.size(), 3u);
  EXPECT_EQ(symbols[1].id, 0u);
  EXPECT_EQ(symbols[1].begin, 1u);
  EXPECT_EQ(symbols[2].begin, 7u);
  // A tie (a+b = -2 = ab): "ab" is found first (from position 0) and "a"+"b" does not beat it. The piece <unk>
  // met in the text fuses with the unknown character after it. Both checked with Hugging Face 0.23.2 (npm).
  absl::StatusOr<UnigramModel> tie = UnigramModel::Create({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -2}}, 0, false);
  ASSERT_TRUE(tie.ok());
  EXPECT_EQ(Spell(*tie, "ab"), (Strings{"ab"}));
  EXPECT_EQ(Spell(*tie, "a<unk>☃a"), (Strings{"a", "<unk>", "a"}));
}

TEST(UnigramModelTest, ByteFallbackAndMissingUnk) {
  std::vector<UnigramModel::Piece> pieces = {{"<unk>", 0}, {"a", -1}};
  for (int b = 0; b < 256; ++b) pieces.push_back({fmt::format("<0x{:02X}>", b), 0});
  absl::StatusOr<UnigramModel> model = UnigramModel::Create(pieces, 0, true);
  ASSERT_TRUE(model.ok());
  // "é" is unknown: its two bytes.
  EXPECT_EQ(Spell(*model, "aé"), (Strings{"a", "<0xC3>", "<0xA9>"}));
  EXPECT_EQ(model->FallbackByte(*model->Find("<0xC3>")), std::optional<unsigned char>(0xC3));
  EXPECT_EQ(model->FallbackByte(1), std::nullopt);
  // No unk id: an unknown character is an error (as in Hugging Face), naming it.
  absl::StatusOr<UnigramModel> no_unk = UnigramModel::Create({{"a", -1}}, std::nullopt, false);
  ASSERT_TRUE(no_unk.ok());
  std::vector<BpeModel::Symbol> symbols;
  absl::Status status = no_unk->Tokenize("a☃", 10, &symbols);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("byte 11"), std::string::npos) << status;
  EXPECT_FALSE(UnigramModel::Create({}, std::nullopt, false).ok());
  EXPECT_FALSE(UnigramModel::Create({{"a", -1}}, 1, false).ok());
}

TEST(PrecompiledNormalizerTest, MalformedBlobsAreErrors) {
  EXPECT_FALSE(PrecompiledNormalizer::FromBase64("not base64!").ok());
  EXPECT_FALSE(PrecompiledNormalizer::FromBlob("").ok());
  EXPECT_FALSE(PrecompiledNormalizer::FromBlob(std::string("\x08\0\0\0\1\2\3", 7)).ok());  // Trie past the end.
  EXPECT_FALSE(PrecompiledNormalizer::FromBlob(std::string("\x03\0\0\0\1\2\3", 7)).ok());  // Not a multiple of 4.
  EXPECT_FALSE(PrecompiledNormalizer::FromBlob(std::string("\x04\0\0\0\1\2\3\4\xFF", 9)).ok());  // Pool not UTF-8.
  // A trie whose links point anywhere: no match, no out-of-bounds read.
  std::string blob("\x08\0\0\0", 4);
  blob += std::string("\xFF\xFF\xFF\xFF\x61\x01\0\0", 8);
  blob += "x";
  absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> normalizer = PrecompiledNormalizer::FromBlob(blob);
  ASSERT_TRUE(normalizer.ok()) << normalizer.status();
  absl::StatusOr<NormalizedText> out = (*normalizer)->Normalize("abc");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->text, "abc");
}

// The real nmt_nfkc charsmap (from nmt-always.json): fullwidth letters, circled digits; offsets point into the input.
TEST(PrecompiledNormalizerTest, SentencePieceRules) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("nmt-always.json"));
  ASSERT_TRUE(text.ok());
  nlohmann::json json = nlohmann::json::parse(*text);
  absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> normalizer =
      PrecompiledNormalizer::FromBase64(json["normalizer"]["precompiled_charsmap"].get<std::string>());
  ASSERT_TRUE(normalizer.ok()) << normalizer.status();
  absl::StatusOr<NormalizedText> out = (*normalizer)->Normalize("ｈｉ①");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->text, "hi1");
  ASSERT_EQ(out->source_begin.size(), 3u);
  EXPECT_EQ(out->source_begin[1], 3u);
  EXPECT_EQ(out->source_end[2], 9u);
}

TEST(MetaspacePreTokenizerTest, PrependSchemesAndSplit) {
  auto rewrite = [](MetaspacePreTokenizer::Options options, std::string_view text, bool at_start) {
    MetaspacePreTokenizer metaspace(std::move(options));
    NormalizedText out;
    std::vector<Piece> pieces;
    EXPECT_TRUE(metaspace.Rewrite(text, at_start, &out, &pieces).ok());
    Strings spelled;
    for (const Piece& piece : pieces) spelled.push_back(out.text.substr(piece.begin, piece.end - piece.begin));
    return spelled;
  };
  using Prepend = MetaspacePreTokenizer::Prepend;
  EXPECT_EQ(rewrite({}, "hi  you", true), (Strings{"▁hi", "▁", "▁you"}));
  EXPECT_EQ(rewrite({}, " hi", false), (Strings{"▁hi"}));  // Already starts with one.
  EXPECT_EQ(rewrite({.prepend = Prepend::kFirst}, "hi", false), (Strings{"hi"}));
  EXPECT_EQ(rewrite({.prepend = Prepend::kFirst}, "hi", true), (Strings{"▁hi"}));
  EXPECT_EQ(rewrite({.prepend = Prepend::kNever, .split = false}, "a b", true), (Strings{"a▁b"}));
  EXPECT_EQ(rewrite({.prepend = Prepend::kFirst, .whitespace_split = true}, "a b\tc", true),
            (Strings{"▁a", "b", "c"}));
  EXPECT_EQ(rewrite({.prepend = Prepend::kFirst, .whitespace_split = true}, " a b", true), (Strings{"a", "b"}));
  EXPECT_EQ(rewrite({.whitespace_split = true}, "a b", false), (Strings{"▁a", "▁b"}));
}

}  // namespace
}  // namespace tokvec
