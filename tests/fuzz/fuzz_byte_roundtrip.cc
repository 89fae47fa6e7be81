// Fuzz target: a byte-level tokenizer (merge-list or tiktoken-rank rule) must give back the exact input bytes:
// Decode(Encode(text)) == text, and the offsets tile the input with each token spelling its own bytes. The ids
// written as text (EncodeIdText, `tokvec encode`'s path) are those ids, cold and again from the warm tables.
//
//   build-fuzz/fuzz_byte_roundtrip tests/fuzz/corpus/byte_roundtrip -max_total_time=30
//
// Input layout: model bits (rule, allow special tokens, split pattern), a few merges over the bytes of the
// text, then the text itself (arbitrary bytes, often invalid UTF-8).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_models.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  FuzzedDataProvider fdp(data, size);
  const bool ranks = fdp.ConsumeBool();
  const bool allow_special = fdp.ConsumeBool();
  const uint8_t pattern = fdp.ConsumeIntegral<uint8_t>();
  const std::string merge_source = fdp.ConsumeRandomLengthString(64);
  const std::string text = fdp.ConsumeRemainingBytesAsString();

  std::unique_ptr<Tokenizer> tokenizer = fuzz::ByteTokenizer(ranks, pattern, merge_source);
  EncodeOptions options;
  options.allow_all_special = allow_special;
  absl::StatusOr<Encoding> encoding = tokenizer->Encode(text, options);
  FUZZ_CHECK(encoding.ok());  // Byte models encode any bytes.
  FUZZ_CHECK(encoding->ids.size() == encoding->offsets.size());
  size_t at = 0;
  for (size_t i = 0; i < encoding->ids.size(); ++i) {
    const Offset& offset = encoding->offsets[i];
    FUZZ_CHECK(offset.begin == at && offset.end > offset.begin && offset.end <= text.size());
    at = offset.end;
    absl::StatusOr<std::string> piece = tokenizer->Decode({&encoding->ids[i], 1});
    FUZZ_CHECK(piece.ok());
    FUZZ_CHECK(*piece == text.substr(offset.begin, offset.end - offset.begin));
  }
  absl::StatusOr<std::string> decoded = tokenizer->Decode(encoding->ids);
  FUZZ_CHECK(decoded.ok());
  FUZZ_CHECK(*decoded == text);
  std::string expected;
  for (TokenId id : encoding->ids) expected += " " + std::to_string(id);
  std::unique_ptr<IdTextCache> texts = tokenizer->NewIdTextCache();
  for (int round = 0; round < 2; ++round) {
    IdTextBuffer out;
    FUZZ_CHECK(tokenizer->EncodeIdText(text, options, 0, {.local_text = texts.get()}, &out).ok());
    FUZZ_CHECK(out.view() == expected);
  }
  return 0;
}
