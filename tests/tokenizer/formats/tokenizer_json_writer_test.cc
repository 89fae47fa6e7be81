// WriteHfTokenizerJson of every tokenizer.json in tests/data, every model kind (byte-level and code-point BPE,
// WordPiece, WordLevel, Unigram) and every legacy shape: the written file reads back to a tokenizer with the same
// ids, offsets, special tokens, truncation and padding, and decode, on text of several scripts; the model is
// written in the current shape (with its "type"); writing the written file again gives the same text. BPE with
// word affixes is refused by name. `make conformance` (written/*) loads the same files in Hugging Face itself.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;

// Every tokenizer.json under tests/data: JSON objects with a "model", golden files left out.
std::vector<fs::path> TokenizerFiles() {
  std::vector<fs::path> out;
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(fs::path(TOKVEC_SOURCE_DIR) / "tests" / "data")) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file() || path.extension() != ".json" || path.filename().string().starts_with("golden")) {
      continue;
    }
    absl::StatusOr<std::string> text = ReadFile(path.string());
    if (!text.ok()) continue;
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (json.is_object() && json.contains("model")) out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> FromText(const std::string& text) {
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(text, "written.json");
  if (!spec.ok()) return spec.status();
  return Tokenizer::Create(std::move(spec).value());
}

const std::vector<std::string>& Texts() {
  static const std::vector<std::string> texts = {
      "Hello, world! It's 2026 and the cat sat on the mat.",
      "  leading and trailing spaces  ",
      "Ελληνικά, русский язык, 日本語のテキスト, العربية, हिन्दी",
      "naïve café — “quotes” and emoji 😀👍🏽",
      "   ",
      "",
      "tabs\tand\nnew lines\r\n",
      "[CLS] <s> </s> <|endoftext|> [SEP] <unk> [UNK] <pad>",
  };
  return texts;
}

bool HasWordAffixes(const nlohmann::json& model) {
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(key) && model[key].is_string() && !model[key].get<std::string>().empty()) return true;
  }
  return false;
}

TEST(HfTokenizerJsonWriterTest, EveryFileReadsBackToTheSameTokenizer) {
  size_t written = 0;
  size_t refused = 0;
  for (const fs::path& path : TokenizerFiles()) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<std::unique_ptr<Tokenizer>> original = Tokenizer::Load(path.string());
    if (!original.ok()) continue;  // Fixtures of errors (tests/data has a few files tokvec refuses on purpose).
    const nlohmann::json source = nlohmann::json::parse(*ReadFile(path.string()));
    const bool is_bpe = !source["model"].contains("type") ? source["model"].contains("merges")
                                                          : source["model"]["type"] == "BPE";
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(**original);
    if (is_bpe && HasWordAffixes(source["model"])) {
      ASSERT_FALSE(json.ok());
      EXPECT_NE(json.status().message().find("continuing_subword_prefix or end_of_word_suffix"), std::string::npos)
          << json.status();
      ++refused;
      continue;
    }
    ASSERT_TRUE(json.ok()) << json.status();
    const nlohmann::json parsed = nlohmann::json::parse(*json);
    EXPECT_TRUE(parsed["model"].contains("type")) << "the model is written in the current shape";
    absl::StatusOr<std::unique_ptr<Tokenizer>> reloaded = FromText(*json);
    ASSERT_TRUE(reloaded.ok()) << reloaded.status();
    const Tokenizer& a = **original;
    const Tokenizer& b = **reloaded;
    EXPECT_EQ(a.type(), b.type());
    EXPECT_EQ(a.vocab_size(), b.vocab_size());
    EXPECT_EQ(a.spec().special_tokens.size(), b.spec().special_tokens.size());
    EXPECT_EQ(a.spec().truncation.has_value(), b.spec().truncation.has_value());
    EXPECT_EQ(a.spec().padding.has_value(), b.spec().padding.has_value());
    for (const std::string& text : Texts()) {
      for (const bool add_special : {false, true}) {
        const EncodeOptions options{.allow_all_special = true, .add_special_tokens = add_special};
        absl::StatusOr<Encoding> x = a.Encode(text, options);
        absl::StatusOr<Encoding> y = b.Encode(text, options);
        ASSERT_EQ(x.ok(), y.ok()) << text << ": " << x.status() << " / " << y.status();
        if (!x.ok()) continue;
        EXPECT_EQ(x->ids, y->ids) << text;
        ASSERT_EQ(x->offsets.size(), y->offsets.size()) << text;
        for (size_t i = 0; i < x->offsets.size(); ++i) {
          EXPECT_EQ(x->offsets[i].begin, y->offsets[i].begin) << text << " token " << i;
          EXPECT_EQ(x->offsets[i].end, y->offsets[i].end) << text << " token " << i;
        }
        absl::StatusOr<std::string> da = a.Decode(x->ids);
        absl::StatusOr<std::string> db = b.Decode(x->ids);
        ASSERT_EQ(da.ok(), db.ok());
        if (da.ok()) EXPECT_EQ(*da, *db) << text;
      }
    }
    absl::StatusOr<std::string> again = WriteHfTokenizerJson(b);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, *json) << "writing the written file again changes it";
    ++written;
  }
  EXPECT_GE(written, 60u);
  EXPECT_GE(refused, 2u);
}

// A model that has no tokenizer.json to keep sections from (a word model trained by tokvec) is refused by name.
TEST(HfTokenizerJsonWriterTest, SpelledModelsNeedTheirSections) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> bert =
      Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/data/wordpiece/uncased.json");
  ASSERT_TRUE(bert.ok()) << bert.status();
  absl::StatusOr<std::string> json = WriteHfTokenizerJson(**bert);
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<TokenizerSpec> read = ReadHfTokenizerJson(*json, "x.json");
  ASSERT_TRUE(read.ok()) << read.status();
  read->hf_sections.reset();
  absl::StatusOr<std::unique_ptr<Tokenizer>> bare = Tokenizer::Create(std::move(read).value());
  ASSERT_TRUE(bare.ok()) << bare.status();
  absl::StatusOr<std::string> refused = WriteHfTokenizerJson(**bare);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("a wordpiece model is written as tokenizer.json only when it was read "
                                            "from one"),
            std::string::npos)
      << refused.status();
}

}  // namespace
}  // namespace tokvec
