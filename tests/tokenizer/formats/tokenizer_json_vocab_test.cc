// The tokenizer.json fast path (tokenizer/formats/tokenizer_json_vocab.h): its string scanner unescapes as nlohmann's parser
// does (the oracle below, a parser we did not write), its vocab and merges scanners refuse what is not plain,
// with the key and byte offset, and a file reads to the same tokenizer through the fast path and the DOM alone.
#include "tokenizer/formats/tokenizer_json_vocab.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/tokenizer/shared_vocab_testutil.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::string> Scan(const std::string& quoted) {
  size_t pos = 0;
  std::string out;
  absl::Status status = ScanJsonString(quoted, &pos, &out);
  if (!status.ok()) return status;
  if (pos != quoted.size()) return absl::InternalError("did not stop after the closing quote");
  return out;
}

TEST(HfVocabReaderTest, StringsUnescapeAsNlohmannDoes) {
  for (const std::string quoted : {
           R"("plain")", R"("")", R"("\"\\\/\b\f\n\r\t")", R"("\u0041\u00e9\u20AC")", R"("\u0000x")",
           R"("\ud83d\ude00 smile")", R"("\uD834\uDD1E")", "\"Ġthe ñ 日本 😀\"", R"("a\u0120b")"}) {
    absl::StatusOr<std::string> ours = Scan(quoted);
    ASSERT_TRUE(ours.ok()) << quoted << ": " << ours.status();
    EXPECT_EQ(*ours, nlohmann::json::parse(quoted).get<std::string>()) << quoted;
  }
}

TEST(HfVocabReaderTest, BadStringsFailWithTheByteOffset) {
  struct Case {
    std::string quoted;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {R"("ab\ud83d")", "byte 3: \\uD83D is a high surrogate without a low surrogate"},
           {R"("ab\ud83d\u0041")", "byte 3: \\uD83D is a high surrogate"},
           {R"("\ude00")", "byte 1: \\uDE00 is a low surrogate without a high surrogate"},
           {R"("a\x")", "byte 2: unknown escape '\\x'"},
           {R"("\u12G4")", "byte 1: \\u needs four hex digits"},
           {R"("\u12")", "byte 1: \\u needs four hex digits"},
           {"\"abc", "byte 4: the text ends inside a string (truncated?)"},
           {"\"ab\\", "byte 3: the text ends inside an escape"},
           {"\"a\nb\"", "byte 2: control character 0x0A"},
           {"\"a\xC3(\"", "byte 2: ill-formed UTF-8 (byte 0xC3)"},
           {"\"\xED\xA0\x80\"", "byte 1: ill-formed UTF-8"},  // A surrogate written as UTF-8.
           {"abc", "byte 0: expected a string"},
       }) {
    absl::StatusOr<std::string> scanned = Scan(c.quoted);
    ASSERT_FALSE(scanned.ok()) << c.quoted;
    EXPECT_THAT(std::string(scanned.status().message()), HasSubstr(c.message)) << c.quoted;
    // nlohmann refuses each of them too.
    EXPECT_TRUE(nlohmann::json::parse(c.quoted, nullptr, false).is_discarded()) << c.quoted;
  }
}

TEST(HfVocabReaderTest, VocabObjectKeepsFileOrderAndRepeats) {
  const std::string text = R"(x {"b": 1, "a" :0 ,"\u0061": 7,"Ġt":18446744073709551615} y)";
  size_t pos = 2;
  absl::StatusOr<FlatVocab> vocab = ScanVocabObject(text, &pos, "model.vocab");
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_EQ(text.substr(pos), " y");
  ASSERT_EQ(vocab->size(), 4u);
  EXPECT_EQ(vocab->spelling(0), "b");
  EXPECT_EQ(vocab->id(0), 1u);
  EXPECT_EQ(vocab->spelling(1), "a");
  EXPECT_EQ(vocab->spelling(2), "a");  // A repeated key is passed on; the reader decides (see below).
  EXPECT_EQ(vocab->id(2), 7u);
  EXPECT_EQ(vocab->spelling(3), "Ġt");
  EXPECT_EQ(vocab->id(3), 18446744073709551615u);
  pos = 0;
  absl::StatusOr<FlatVocab> empty = ScanVocabObject("{ }", &pos, "model.vocab");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(pos, 3u);
}

TEST(HfVocabReaderTest, VocabIdsMustBePlainNonNegativeIntegers) {
  // Each is what nlohmann does not read as an unsigned number (or does not read at all).
  for (const std::string id : {"-1", "1.0", "1e2", "\"1\"", "null", "01", "18446744073709551616", "[1]", ""}) {
    const std::string text = R"({"b": 1, "a": )" + id + "}";
    size_t pos = 0;
    absl::StatusOr<FlatVocab> vocab = ScanVocabObject(text, &pos, "model.vocab");
    ASSERT_FALSE(vocab.ok()) << text;
    EXPECT_THAT(std::string(vocab.status().message()),
                HasSubstr("key 'model.vocab.a': byte 14: the id must be a non-negative integer"))
        << text;
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    EXPECT_TRUE(parsed.is_discarded() || !parsed["a"].is_number_unsigned()) << text;
  }
}

TEST(HfVocabReaderTest, MalformedVocabObjectsNameTheByte) {
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"a" 1})", "key 'model.vocab': byte 5: expected ':'"},
           {R"({"a": 1 "b": 2})", "key 'model.vocab': byte 8: expected ',' or '}'"},
           {R"({"a": 1,})", "key 'model.vocab': byte 8: expected a spelling in quotes"},
           {R"({a: 1})", "key 'model.vocab': byte 1: expected a spelling in quotes"},
           {R"({"a": 1, "b)", "key 'model.vocab': byte 11: the text ends inside a string"},
           {R"({"a": 1)", "key 'model.vocab': byte 7: the text ends inside the object"},
           {R"([1])", "key 'model.vocab': byte 0: expected an object"},
       }) {
    size_t pos = 0;
    absl::StatusOr<FlatVocab> vocab = ScanVocabObject(c.text, &pos, "model.vocab");
    ASSERT_FALSE(vocab.ok()) << c.text;
    EXPECT_THAT(std::string(vocab.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(HfVocabReaderTest, MergesTakeBothFormsAndNameTheBadOne) {
  size_t pos = 0;
  absl::StatusOr<FlatMerges> merges = ScanMergesArray(R"([ "Ġ t", ["a", "\u0062c"] ,"x y"])", &pos, "model.merges");
  ASSERT_TRUE(merges.ok()) << merges.status();
  ASSERT_EQ(merges->size(), 3u);
  EXPECT_EQ(merges->left(0), "Ġ");
  EXPECT_EQ(merges->right(0), "t");
  EXPECT_EQ(merges->left(1), "a");
  EXPECT_EQ(merges->right(1), "bc");
  EXPECT_EQ(merges->left(2), "x");
  EXPECT_EQ(merges->right(2), "y");
  pos = 0;
  absl::StatusOr<FlatMerges> empty = ScanMergesArray("[]", &pos, "model.merges");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {R"(["a b", "a  b"])", "key 'model.merges[1]': byte 8: expected \"LEFT RIGHT\" (one space), got 'a  b'"},
           {R"(["a b", "ab"])", "key 'model.merges[1]': byte 8: expected \"LEFT RIGHT\" (one space)"},
           {R"(["a b", ["a"]])", "key 'model.merges[1]': byte 12: expected [\"LEFT\", \"RIGHT\"]"},
           {R"(["a b", ["a", "b", "c"]])", "key 'model.merges[1]': byte 17: expected [\"LEFT\", \"RIGHT\"]"},
           {R"(["a b", 7])", "key 'model.merges[1]': byte 8: expected \"LEFT RIGHT\" or"},
           {R"(["a b" "c d"])", "key 'model.merges': byte 7: expected ',' or ']'"},
           {R"(["a b",)", "key 'model.merges': byte 7: the text ends inside the array"},
       }) {
    pos = 0;
    absl::StatusOr<FlatMerges> bad = ScanMergesArray(c.text, &pos, "model.merges");
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_THAT(std::string(bad.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(HfVocabReaderTest, DivertsOnlyTheModelsVocabObjectAndMergesArray) {
  const std::string text = R"({"decoder": {"vocab": {"x": 0}}, "model": {"type": "BPE", "merges": ["a b"],
      "vocab": {"a": 0, "b": 1, "ab": 2}, "dropout": null}, "post": [{"model": {"vocab": {}}}]})";
  HfModelTables tables = DivertModelTables(text);
  ASSERT_TRUE(tables.diverted()) << tables.scan_error;
  ASSERT_TRUE(tables.vocab.has_value());
  ASSERT_TRUE(tables.merges.has_value());
  EXPECT_EQ(tables.vocab->size(), 3u);
  EXPECT_EQ(tables.merges->size(), 1u);
  nlohmann::json rest = nlohmann::json::parse(tables.rest);
  EXPECT_TRUE(rest["model"]["vocab"].is_null());
  EXPECT_TRUE(rest["model"]["merges"].is_null());
  EXPECT_EQ(rest["decoder"]["vocab"]["x"], 0);  // Not the model's: left in place.
  EXPECT_EQ(rest["post"][0]["model"]["vocab"], nlohmann::json::object());
  EXPECT_EQ(rest["model"]["type"], "BPE");
}

TEST(HfVocabReaderTest, DeclinesShapesItDoesNotRead) {
  for (const std::string text : {
           std::string(R"({"model": {"type": "Unigram", "vocab": [["a", -1.5]]}})"),  // Unigram: the DOM reads it.
           std::string(R"({"model": {"vocab": {"a": 0}, "vocab": {"b": 0}}})"),     // A repeated key.
           std::string(R"({"model": {"vocab": {"a": 0}}, "model": {"vocab": {}}})"),
           std::string(R"({"model": {"\u0076ocab": {"a": 0}, "vocab": {"b": 0}}})"),  // An escaped key.
           std::string(R"([{"model": {"vocab": {"a": 0}}}])"),                        // Not an object.
           std::string(R"({"model": {"vocab": {"a": 0}})"),                           // Truncated after it.
           std::string(R"({"model" {"vocab": {"a": 0}}})"),
       }) {
    HfModelTables tables = DivertModelTables(text);
    EXPECT_FALSE(tables.diverted()) << text;
    EXPECT_EQ(tables.scan_error, "") << text;
  }
  HfModelTables tables = DivertModelTables(R"({"model": {"vocab": {"a": -1}}})");
  EXPECT_FALSE(tables.diverted());
  EXPECT_THAT(tables.scan_error, HasSubstr("key 'model.vocab.a': byte 26: the id must be a non-negative integer"));
}

// Everything a reader produces that ids depend on, as text, to compare two readings.
std::string Describe(const absl::StatusOr<TokenizerSpec>& spec) {
  if (!spec.ok()) return "error: " + std::string(spec.status().message());
  std::string out = std::string(ModelTypeName(spec->type)) + " pattern " +
                    (spec->pre_tokenizer ? spec->pre_tokenizer->name() : "-") + " normalizer " +
                    (spec->normalizer ? spec->normalizer->name() : "-") +
                    (spec->ignore_merges ? " ignore_merges" : "") + "\n";
  for (TokenId id = 0; id < spec->bpe.size(); ++id) out += std::to_string(id) + " " + spec->bpe.token(id) + "\n";
  for (const BpeModel::MergePair& merge : spec->bpe.merges()) {
    out += std::to_string(merge.left) + "+" + std::to_string(merge.right) + "\n";
  }
  for (TokenId id = 0; id < spec->wordpiece.size(); ++id) out += "wp " + spec->wordpiece.token(id) + "\n";
  for (const SpecialToken& special : spec->special_tokens) out += special.text + "=" + std::to_string(special.id) + "\n";
  return out;
}

// Reads `text` both ways; both must agree, and the fast path's tokenizer must give the DOM's ids on `sample`.
void ExpectSameBothWays(const std::string& text, const std::string& sample) {
  absl::StatusOr<TokenizerSpec> fast = ReadHfTokenizerJson(text, "tokenizer.json");
  absl::StatusOr<TokenizerSpec> dom = ReadHfTokenizerJsonViaDom(text, "tokenizer.json");
  ASSERT_EQ(Describe(fast), Describe(dom));
  if (!fast.ok()) return;
  absl::StatusOr<std::unique_ptr<Tokenizer>> a = Tokenizer::Create(*std::move(fast));
  absl::StatusOr<std::unique_ptr<Tokenizer>> b = Tokenizer::Create(*std::move(dom));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->Encode(sample)->ids, (*b)->Encode(sample)->ids);
}

std::string TinyBpe(const std::string& vocab, const std::string& merges) {
  return R"({"added_tokens": [{"id": 9, "content": "<|end|>"}], "normalizer": null,
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
      "model": {"type": "BPE", "ignore_merges": false, "vocab": )" + vocab + R"(, "merges": )" + merges + "}}";
}

TEST(HfVocabReaderTest, FastPathReadsAsTheDomDoes) {
  const std::string vocab = R"({"a": 0, "b": 1, "c": 2, "Ġ": 3, "ab": 4, "abc": 5, "Ġa": 6})";
  ExpectSameBothWays(TinyBpe(vocab, R"(["a b", "ab c", "Ġ a"])"), "abc abc ac");
  ExpectSameBothWays(TinyBpe(vocab, R"([["a", "b"], ["ab", "c"], ["Ġ", "a"]])"), "abc abc ac");
  ExpectSameBothWays(TinyBpe("{}", "[]"), "");
  // Errors read the same too (the DOM decides them).
  ExpectSameBothWays(TinyBpe(vocab, R"(["a b", "a x"])"), "");
  ExpectSameBothWays(TinyBpe(vocab, R"(["a b", "b c"])"), "");
  ExpectSameBothWays(TinyBpe(R"({"a": 0, "b": 0})", "[]"), "");
  ExpectSameBothWays(TinyBpe(R"({"a": "0"})", "[]"), "");
}

// Hugging Face tokenizers 0.23.2 (npm) keeps the last id of a repeated key: with {"a": 0, "b": 1, "ab": 2,
// "a": 3} its getVocab() is {a: 3, ab: 2, b: 1} and "aab ab" encodes to [3, 2, 2] (checked by hand with the peer).
TEST(HfVocabReaderTest, RepeatedKeyKeepsTheLastIdAsHuggingFace) {
  const std::string text = TinyBpe(R"({"a": 0, "b": 1, "ab": 2, "Ġ": 4, "Ġab": 5, "a": 3})", R"(["a b", "Ġ ab"])");
  ExpectSameBothWays(text, "aab ab");
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(text, "tokenizer.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->bpe.Find("a"), std::optional<TokenId>(3));
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(*std::move(spec));
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_EQ((*tokenizer)->Encode("aab")->ids, (std::vector<TokenId>{3, 2}));
}

// GPT-2's vocab.json goes through the same scanner; a repeated key keeps its last id there too.
TEST(HfVocabReaderTest, Gpt2VocabJsonRepeatedKeyKeepsTheLastId) {
  const std::string dir = ::testing::TempDir() + "/hf_vocab_reader_gpt2_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/vocab.json") << R"({"a": 0, "b": 1, "ab": 2, "a": 3})";
  std::ofstream(dir + "/merges.txt") << "#version: 0.2\na b\n";
  absl::StatusOr<TokenizerSpec> spec = ReadGpt2VocabAndMerges(dir + "/vocab.json", dir + "/merges.txt");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->bpe.Find("a"), std::optional<TokenId>(3));
  EXPECT_EQ(spec->bpe.token(0), "");
  ASSERT_EQ(spec->bpe.merges().size(), 1u);
  EXPECT_EQ(spec->bpe.merges()[0].left, 3u);
}

TEST(HfVocabReaderTest, WordPieceFilesReadAsTheDomDoes) {
  for (const char* name : {"uncased", "cased", "whitespace-split"}) {
    const std::string path = std::string(TOKVEC_SOURCE_DIR) + "/tests/data/wordpiece/" + name + ".json";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ExpectSameBothWays(text, "Hello, unaffable world! Ünïcödé 日本語");
  }
  const std::string repeated = R"({"pre_tokenizer": {"type": "WhitespaceSplit"}, "model": {"type": "WordPiece",
      "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "##b": 2, "a": 3}}})";
  ExpectSameBothWays(repeated, "ab a");
}

TEST(HfVocabReaderTest, SharedEncodingsReadAsTheDomDoes) {
  size_t checked = 0;
  for (const char* name : {"gpt2", "cl100k_base"}) {
    std::optional<std::string> path = testing::SharedVocabPath(std::string(name) + ".tiktoken");
    if (!path) continue;
    absl::StatusOr<std::unique_ptr<Tokenizer>> original = Tokenizer::Load(*path);
    ASSERT_TRUE(original.ok()) << original.status();
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(**original);
    ASSERT_TRUE(json.ok()) << json.status();
    ExpectSameBothWays(*json, "Hello world! Ünïcödé 日本語 tokens  \n\t spaces 12345");
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no .tiktoken files in the shared vocab folder";
}

}  // namespace
}  // namespace tokvec
