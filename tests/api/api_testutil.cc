#include "tests/api/api_testutil.h"

#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"

namespace tokvec::api {
namespace {

// The first `bytes` of the file, cut after its last whole line so no UTF-8 sequence is split.
std::string Head(const std::string& path, size_t bytes) {
  absl::StatusOr<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return "";
  if (text->size() <= bytes) return *text;
  const size_t newline = text->rfind('\n', bytes);
  return text->substr(0, newline == std::string::npos ? 0 : newline + 1);
}

}  // namespace

std::string SharedVocab(const std::string& name) { return std::string(TOKVEC_SHARED_DIR) + "/vocab/" + name; }

std::string TestdataPath(const std::string& name) {
  return std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/" + name;
}

std::vector<std::string> RealTokenizerFiles() {
  return {SharedVocab("gpt2.tiktoken"), SharedVocab("cl100k_base.tiktoken"), SharedVocab("o200k_base.tiktoken"),
          SharedVocab("gpt2"), TestdataPath("hf_qwen3_f32/tokenizer.json"),
          TestdataPath("hf_bert_f32/tokenizer.json")};
}

std::vector<std::string> RealTexts() {
  const std::string corpora = std::string(TOKVEC_SHARED_DIR) + "/corpora/";
  std::vector<std::string> texts = {Head(corpora + "botchan.txt", 16384),
                                    Head(corpora + "wagahaiwa_nekodearu.txt", 16384)};
  for (const char* udhr : {"arb.txt", "amh.txt", "ell_monotonic.txt", "mkd.txt"}) {
    texts.push_back(Head(corpora + "udhr/" + udhr, 4096));
  }
  texts.insert(texts.end(), {"", "   \n\n\t  two  spaces  ", "naïve café 🐈‍⬛ 123456789 don't"});
  return texts;
}

}  // namespace tokvec::api
