// Fuzz target: a `tokvec extend --add-tokens` file (ParseNewTokens: plain lines and added_tokens objects) added to a
// small byte-level tokenizer (AddTokens), then the extended tokenizer encodes the same bytes. Any input gives a
// status or a tokenizer whose old ids stay where they were and whose encoding decodes back.
//
//   build-fuzz/fuzz_added_tokens_file tests/fuzz/corpus/added_tokens_file -max_total_time=30
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/text/byte_unicode.h"

namespace {

// 256 byte tokens and two merges ("t" "o", "to" "k"), GPT-2's pre-tokenizer.
const std::string& BaseJson() {
  static const std::string* json = [] {
    std::string vocab;
    for (int b = 0; b < 256; ++b) {
      const std::string spelled = tokvec::BytesToUnicode(std::string(1, static_cast<char>(b)));
      std::string escaped;
      for (char c : spelled) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
      }
      vocab += "\"" + escaped + "\": " + std::to_string(b) + ", ";
    }
    vocab += "\"to\": 256, \"tok\": 257";
    return new std::string(
        R"({"version": "1.0", "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "ByteLevel",
        "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, "post_processor": null, "decoder":
        {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}, "model": {"type":
        "BPE", "vocab": {)" + vocab + R"(}, "merges": [["t", "o"], ["to", "k"]]}})");
  }();
  return *json;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<NewToken>> tokens = ParseNewTokens(text, {}, "fuzz.txt");
  if (!tokens.ok()) {
    FUZZ_CHECK(!tokens.status().message().empty());
    return 0;
  }
  absl::StatusOr<TokenizerSpec> base_spec = ReadHfTokenizerJson(BaseJson(), "base.json");
  FUZZ_CHECK(base_spec.ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> before = Tokenizer::Create(*std::move(base_spec));
  FUZZ_CHECK(before.ok());
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(BaseJson(), "base.json");
  FUZZ_CHECK(spec.ok());
  absl::StatusOr<AddedTokensReport> report = AddTokens(*tokens, **before, &*spec);
  if (!report.ok()) return 0;
  absl::StatusOr<std::unique_ptr<Tokenizer>> after = Tokenizer::Create(*std::move(spec));
  if (!after.ok()) {
    FUZZ_CHECK(!after.status().message().empty());  // e.g. an added token that is not valid UTF-8
    return 0;
  }
  FUZZ_CHECK((*after)->vocab_size() >= (*before)->vocab_size());
  FUZZ_CHECK((*after)->vocab_size() == (*before)->vocab_size() + report->new_ids);
  absl::StatusOr<Encoding> encoded = (*after)->Encode(text, {.allow_all_special = true});
  if (!encoded.ok()) return 0;
  for (TokenId id : encoded->ids) FUZZ_CHECK(id < (*after)->vocab_size());
  return 0;
}
