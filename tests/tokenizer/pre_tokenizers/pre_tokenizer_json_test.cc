// Hugging Face pre-tokenizers of byte-level tokenizer.json files (tests/data/pretok, made by
// scripts/gen_pretok_files.mjs with Hugging Face tokenizers 0.23.2): goldens, split behaviours, threads, writers,
// unreachable vocabulary entries, malformed pre_tokenizers.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer_json.h"
#include "tokenizer/pre_tokenizers/split_behavior.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/pretok/" + name; }

nlohmann::json Golden() {
  absl::StatusOr<std::string> text = ReadFile(DataPath("golden.json"));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json::object();
}

std::unique_ptr<Tokenizer> LoadFile(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(DataPath(name + ".json"));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

EncodeOptions AllSpecial() {
  EncodeOptions all;
  all.allow_all_special = true;  // Hugging Face always matches added tokens.
  return all;
}

// Ids and decode of every golden sentence of one tokenizer.
void ExpectGoldens(const Tokenizer& tokenizer, const nlohmann::json& cases, const std::string& name) {
  for (const auto& c : cases) {
    const std::string input = c["text"].get<std::string>();
    absl::StatusOr<Encoding> encoding = tokenizer.Encode(input, AllSpecial());
    ASSERT_TRUE(encoding.ok()) << encoding.status();
    EXPECT_EQ(encoding->ids, c["ids"].get<std::vector<TokenId>>()) << name << ": " << input;
    absl::StatusOr<std::string> decoded = tokenizer.Decode(c["ids"].get<std::vector<TokenId>>());
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, c["decode"].get<std::string>()) << name << ": " << input;
  }
}

TEST(HfPreTokenizerTest, GoldensFromHuggingFace) {
  const nlohmann::json golden = Golden();
  ASSERT_GE(golden.size(), 21u);
  for (const auto& [name, cases] : golden.items()) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(name);
    ASSERT_NE(tokenizer, nullptr) << name;
    ExpectGoldens(*tokenizer, cases, name);
  }
}

// Hugging Face's own table (tokenizers/src/pre_tokenizers/split.rs, test `basic`): "How are you doing?" split by
// \w+|[^\w\s]+ with invert, so the spaces are the matches.
TEST(HfPreTokenizerTest, SplitBehaviorsAsHuggingFaceDocuments) {
  // Segments of "How are you doing?" (invert: the words are the pattern's matches, the spaces are not).
  const std::vector<SplitSegment> segments = {{0, 3, true},   {3, 4, false},  {4, 7, true}, {7, 8, false},
                                              {8, 11, true},  {11, 12, false}, {12, 17, true}, {17, 18, true}};
  auto split = [&](SplitBehavior behavior) {
    std::vector<Piece> pieces;
    ApplySplitBehavior(segments, behavior, /*invert=*/true, &pieces);
    std::vector<std::pair<size_t, size_t>> out;
    for (const Piece& p : pieces) out.emplace_back(p.begin, p.end);
    return out;
  };
  using P = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(split(SplitBehavior::kRemoved), (P{{0, 3}, {4, 7}, {8, 11}, {12, 17}, {17, 18}}));
  EXPECT_EQ(split(SplitBehavior::kIsolated), (P{{0, 3}, {3, 4}, {4, 7}, {7, 8}, {8, 11}, {11, 12}, {12, 17}, {17, 18}}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithPrevious), (P{{0, 4}, {4, 8}, {8, 12}, {12, 17}, {17, 18}}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithNext), (P{{0, 3}, {3, 7}, {7, 11}, {11, 17}, {17, 18}}));
  EXPECT_EQ(split(SplitBehavior::kContiguous), (P{{0, 3}, {3, 4}, {4, 7}, {7, 8}, {8, 11}, {11, 12}, {12, 18}}));
  EXPECT_EQ(ParseSplitBehavior("MergedWithNext"), SplitBehavior::kMergedWithNext);
  EXPECT_EQ(ParseSplitBehavior("merged_with_next"), std::nullopt);
}

// The fast shapes keep their splitters; the others are an HfPreTokenizer, which finds no cut.
TEST(HfPreTokenizerTest, FastShapesAndCuts) {
  std::unique_ptr<Tokenizer> falcon = LoadFile("falcon");
  ASSERT_NE(falcon, nullptr);
  EXPECT_NE(dynamic_cast<const HfPreTokenizer*>(falcon->spec().pre_tokenizer.get()), nullptr);
  EXPECT_EQ(falcon->FindCut("hello world again", 10, {}), 0u);
  std::unique_ptr<Tokenizer> base = LoadFile("unreachable");  // The gpt2 ByteLevel of `tokvec convert`.
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->spec().pre_tokenizer->name(), "gpt2");
  EXPECT_GT(base->FindCut("hello world again", 10, {}), 0u);
}

// Several threads share one tokenizer (per-thread scratch in HfPreTokenizer): the same ids as one thread.
TEST(HfPreTokenizerTest, ThreadsGiveTheSameIds) {
  const nlohmann::json golden = Golden();
  std::string text;
  for (const auto& c : golden["falcon"]) text += c["text"].get<std::string>() + "\n";
  for (const char* name : {"falcon", "after-bytelevel", "scripts", "clip-split"}) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(name);
    ASSERT_NE(tokenizer, nullptr);
    absl::StatusOr<Encoding> expected = tokenizer->Encode(text);
    ASSERT_TRUE(expected.ok());
    std::vector<std::vector<TokenId>> got(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 20; ++round) {
          got[t].clear();
          ASSERT_TRUE(tokenizer->EncodeIds(text, {}, &got[t]).ok());
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const auto& ids : got) EXPECT_EQ(ids, expected->ids) << name;
  }
}

// `tokvec convert` writes the pre-tokenizer back (add_prefix_space on its first ByteLevel too), and a tokvec
// model file keeps it: both give Hugging Face's ids again.
TEST(HfPreTokenizerTest, WritersKeepThePreTokenizer) {
  const nlohmann::json golden = Golden();
  for (const char* name : {"falcon", "after-bytelevel", "punct-merged-with-next", "unreachable"}) {
    std::unique_ptr<Tokenizer> tokenizer = LoadFile(name);
    ASSERT_NE(tokenizer, nullptr);
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(*tokenizer);
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(*json, std::string(name) + " (written)");
    ASSERT_TRUE(spec.ok()) << spec.status();
    absl::StatusOr<std::unique_ptr<Tokenizer>> again = Tokenizer::Create(std::move(spec).value());
    ASSERT_TRUE(again.ok());
    ExpectGoldens(**again, golden[name], std::string(name) + " (tokenizer.json written)");
    if (std::string(name) == "after-bytelevel") {
      EXPECT_TRUE(nlohmann::json::parse(*json)["pre_tokenizer"]["pretokenizers"][0]["add_prefix_space"].get<bool>());
    }
    if (std::string(name) == "unreachable") continue;  // A tokvec model file has no unreachable entries.
    // A tokvec model file (its special tokens cannot share vocabulary ids: drop them, and the sentence that
    // spells one).
    absl::StatusOr<std::string> file_text = ReadFile(DataPath(std::string(name) + ".json"));
    ASSERT_TRUE(file_text.ok());
    absl::StatusOr<TokenizerSpec> plain = ReadHfTokenizerJson(*file_text, name);
    ASSERT_TRUE(plain.ok()) << plain.status();
    plain->special_tokens.clear();
    absl::StatusOr<std::unique_ptr<Tokenizer>> without_specials = Tokenizer::Create(std::move(plain).value());
    ASSERT_TRUE(without_specials.ok());
    absl::StatusOr<TokenizerSpec> model = ReadTokvecModel(WriteTokvecModel(**without_specials), "model file");
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<std::unique_ptr<Tokenizer>> from_model = Tokenizer::Create(std::move(model).value());
    ASSERT_TRUE(from_model.ok());
    nlohmann::json cases = nlohmann::json::array();
    for (const auto& c : golden[name]) {
      if (c["text"].get<std::string>().find("<|") == std::string::npos) cases.push_back(c);
    }
    ExpectGoldens(**from_model, cases, std::string(name) + " (model file)");
  }
  std::unique_ptr<Tokenizer> falcon = LoadFile("falcon");
  absl::StatusOr<std::string> ranks = WriteTiktoken(*falcon);
  EXPECT_EQ(ranks.status().code(), absl::StatusCode::kFailedPrecondition);
}

// Entries spelled outside the byte alphabet ("日本") and an empty one load, as in Hugging Face; decode spells them.
TEST(HfPreTokenizerTest, UnreachableEntriesLoad) {
  std::unique_ptr<Tokenizer> tokenizer = LoadFile("unreachable");
  ASSERT_NE(tokenizer, nullptr);
  ASSERT_EQ(tokenizer->spec().unreachable_tokens.size(), 2u);
  const UnreachableToken* raw = nullptr;
  for (const UnreachableToken& u : tokenizer->spec().unreachable_tokens) {
    if (u.spelling == "日本") raw = &u;
  }
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(tokenizer->vocab_size(), size_t{raw->id} + 2);  // "" has the last id.
  EXPECT_EQ(tokenizer->TokenSpelling(raw->id), "日本");
  absl::StatusOr<std::string> decoded = tokenizer->Decode({raw->id, raw->id + 1});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, "日本");
  // Encoding never produces them: "日本" is its bytes' tokens.
  absl::StatusOr<Encoding> encoding = tokenizer->Encode("日本");
  ASSERT_TRUE(encoding.ok());
  for (TokenId id : encoding->ids) EXPECT_LT(id, raw->id);
  // A merge naming an unreachable entry is dropped, not an error.
  absl::StatusOr<std::string> text = ReadFile(DataPath("unreachable.json"));
  ASSERT_TRUE(text.ok());
  nlohmann::json json = nlohmann::json::parse(*text);
  json["model"]["merges"].push_back(nlohmann::json::array({"日本", "a"}));
  EXPECT_TRUE(ReadHfTokenizerJson(json.dump(), "merge.json").ok());
}

// Malformed pre_tokenizers: clear errors naming the key.
TEST(HfPreTokenizerTest, BadPreTokenizers) {
  absl::StatusOr<std::string> text = ReadFile(DataPath("falcon.json"));
  ASSERT_TRUE(text.ok());
  const nlohmann::json base = nlohmann::json::parse(*text);
  const nlohmann::json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  auto error = [&](const nlohmann::json& pre) {
    nlohmann::json json = base;
    json["pre_tokenizer"] = pre;
    absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(json.dump(), "bad.json");
    return spec.ok() ? std::string("ok") : std::string(spec.status().message());
  };
  auto seq = [&](nlohmann::json step) {
    return nlohmann::json{{"type", "Sequence"}, {"pretokenizers", {step, byte_level}}};
  };
  EXPECT_NE(error(seq({{"type", "Mystery"}})).find("pre-tokenizer 'Mystery' is not supported"), std::string::npos);
  EXPECT_NE(error(seq({{"type", "Punctuation"}, {"behavior", "Sideways"}})).find("pretokenizers[0].behavior"),
            std::string::npos);
  EXPECT_NE(error(seq({{"type", "Split"}, {"pattern", {{"Regex", "(["}}}, {"behavior", "Removed"}, {"invert", false}}))
                .find("not a valid ICU regex"),
            std::string::npos);
  EXPECT_NE(error(seq({{"type", "Split"}, {"pattern", {{"Regex", "a"}}}})).find("behavior"), std::string::npos);
  EXPECT_NE(error(seq({{"type", "CharDelimiterSplit"}, {"delimiter", "ab"}})).find("one character"),
            std::string::npos);
  // Without a ByteLevel step the vocabulary is read as SentencePiece-style BPE over code points, which takes the
  // splitters and Metaspace, and names the others.
  EXPECT_NE(error({{"type", "Mystery"}}).find("pre-tokenizer 'Mystery' is not supported with a BPE model over code points"),
            std::string::npos);
  EXPECT_NE(error(seq(byte_level)).find("exactly one ByteLevel"), std::string::npos);
  nlohmann::json prefixed = byte_level;
  prefixed["add_prefix_space"] = true;
  EXPECT_NE(error({{"type", "Sequence"}, {"pretokenizers", {{{"type", "Digits"}}, prefixed}}}).find("add_prefix_space"),
            std::string::npos);
  EXPECT_NE(error({{"type", "Sequence"}, {"pretokenizers", 3}}).find("pretokenizers"), std::string::npos);
  EXPECT_EQ(error(seq({{"type", "Whitespace"}})), "ok");
}

}  // namespace
}  // namespace tokvec
