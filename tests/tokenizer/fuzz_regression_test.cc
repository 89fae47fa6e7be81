// Every input the fuzzers (tests/fuzz/) found a bug with, kept in tests/fuzz/regressions/<target>/, replayed
// through the same reader, plus a hand-written case for each bug. A reader must return a status (or a tokenizer
// that encodes) quickly and without allocating what the input merely claims.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kRegressions = fs::path(TOKVEC_SOURCE_DIR) / "tests" / "fuzz" / "regressions";

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The fuzz targets' input layout: the file, then optionally "\n#\n" and a sample text.
void Replay(const fs::path& file, absl::StatusOr<TokenizerSpec> (*read)(std::string_view, const std::string&)) {
  SCOPED_TRACE(file.string());
  std::string input = ReadBytes(file);
  std::string sample = "Hello world, low lower newest!";
  if (size_t at = input.rfind("\n#\n"); at != std::string::npos) {
    sample = input.substr(at + 3);
    input.resize(at);
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<TokenizerSpec> spec = read(input, file.string());
  if (spec.ok()) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(*std::move(spec));
    if (tokenizer.ok()) {
      absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(sample);
      if (encoding.ok()) {
        EXPECT_TRUE((*tokenizer)->Decode(encoding->ids).ok());
      }
      // With every added token and the post-processor's: those ids decode too.
      absl::StatusOr<Encoding> with_specials =
          (*tokenizer)->Encode(sample, {.allow_all_special = true, .add_special_tokens = true});
      if (with_specials.ok()) {
        EXPECT_TRUE((*tokenizer)->Decode(with_specials->ids, {.skip_special_tokens = true}).ok());
      }
    }
  } else {
    EXPECT_FALSE(spec.status().message().empty());
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

absl::StatusOr<TokenizerSpec> ReadTiktokenGpt2(std::string_view text, const std::string& path) {
  return ReadTiktoken(text, path, "gpt2");
}

TEST(FuzzRegressionTest, ReplayFindings) {
  const std::pair<const char*, absl::StatusOr<TokenizerSpec> (*)(std::string_view, const std::string&)> kReaders[] = {
      {"tokvec_model", &ReadTokvecModel},
      {"tiktoken", &ReadTiktokenGpt2},
      {"hf_tokenizer_json", &ReadHfTokenizerJson},
  };
  int replayed = 0;
  for (const auto& [target, read] : kReaders) {
    if (!fs::is_directory(kRegressions / target)) continue;
    for (const auto& entry : fs::directory_iterator(kRegressions / target)) {
      Replay(entry.path(), read);
      ++replayed;
    }
  }
  EXPECT_GT(replayed, 0) << "no findings under " << kRegressions;
}

// fuzz_hf_tokenizer_json: a post_processor naming an id that is neither a vocabulary entry nor an added token (a
// RobertaProcessing's <s> whose added token was lost) loaded, and its ids decoded to an error. Refused at load now.
TEST(FuzzRegressionTest, PostProcessorTokensMustBeTokens) {
  const std::string file = R"({"version": "1.0", "added_tokens": [], "normalizer": null,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
    "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 5], "cls": ["<s>", 4], "trim_offsets": true,
                       "add_prefix_space": false},
    "decoder": null, "model": {"type": "BPE", "vocab": {"a": 5, "b": 1, "\u0120": 2, "ab": 3}, "merges": ["a b"]}})";
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(file, "gap.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(*std::move(spec));
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_THAT(tokenizer.status().message(), HasSubstr("adds token id 4, which is neither in the vocabulary"));
}

// fuzz_tokvec_model, first finding: a header id of 244444444 in a 60-line file made the reader size its id
// table to 244 million entries (10 GB). Ids and counts are now bounded by the file's line count.
TEST(FuzzRegressionTest, TokvecModelIdsAndCountsCannotExceedTheFile) {
  const std::string header = "tokvec-bpe 1\ntype word\npre_tokenizer whitespace\nnormalizer none\n";
  absl::StatusOr<TokenizerSpec> spec =
      ReadTokvecModel(header + "unk 0\nend_of_word 244444444\nalphabet 0\nmerges 0\nend\n", "huge_id.tokvec");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("token id 244444444 is larger than"));
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("huge_id.tokvec line 6"));

  spec = ReadTokvecModel(header + "unk 0\nend_of_word 1\nalphabet 2000000000\n2 a\nmerges 0\nend\n", "count.tokvec");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("count 2000000000 is more than"));

  spec = ReadTokvecModel(header + "unk 0\nend_of_word 1\nalphabet 1\n2 a\nmerges 2000000000\na a\nend\n",
                         "merges.tokvec");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("count 2000000000"));

  spec = ReadTokvecModel(header + "unk 0\nend_of_word 1\nalphabet 1\n2 a\nmerges 1\na a 2000000000\nend\n",
                         "merge_id.tokvec");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("token id 2000000000 is larger than"));
}

}  // namespace
}  // namespace tokvec
