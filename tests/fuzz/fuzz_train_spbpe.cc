// Fuzz target: train a SentencePiece-style BPE (tokenizer/trainers/spbpe_trainer.h) on the fuzz text itself, load
// the tokenizer.json it writes, and check that decode(encode(text)) == text (byte fallback covers every character
// left out of the alphabet). Invalid UTF-8 must be an error; training with 1 and 2 threads must write the same file.
//
//   build-fuzz/fuzz_train_spbpe tests/fuzz/corpus/train_spbpe -max_total_time=30
//
// Input layout (FuzzedDataProvider, integers from the end): the text, then the vocabulary size above the minimum
// and the character coverage.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "base/file_io.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/spbpe_trainer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  if (size > 4096) return 0;  // keep each run short
  FuzzedDataProvider fdp(data, size);
  const size_t extra = fdp.ConsumeIntegralInRange<size_t>(0, 200);
  const double coverage = 0.5 + 0.5 * fdp.ConsumeProbability<double>();
  const std::string text = fdp.ConsumeRemainingBytesAsString();
  static const std::string dir = "/tmp/tokvec_fuzz_spbpe_" + std::to_string(getpid());
  static const bool made = WriteFileAtomically(dir + ".txt", "").ok();
  FUZZ_CHECK(made);
  FUZZ_CHECK(WriteFileAtomically(dir + ".txt", text).ok());

  SpBpeReport report;
  absl::StatusOr<std::string> json =
      TrainSpBpe({dir + ".txt"}, {.vocab_size = 259 + 4096 + extra, .character_coverage = coverage}, &report);
  if (FindInvalidUtf8(text).has_value()) {
    FUZZ_CHECK(!json.ok());
    return 0;
  }
  if (!json.ok()) {  // no words at all, or (rarely) a piece spelling a reserved token
    const std::string message(json.status().message());
    FUZZ_CHECK(message.find("no text to learn from") != std::string::npos ||
               message.find("reserved token") != std::string::npos);
    return 0;
  }
  absl::StatusOr<std::string> again =
      TrainSpBpe({dir + ".txt"}, {.vocab_size = 259 + 4096 + extra, .character_coverage = coverage, .threads = 2});
  FUZZ_CHECK(again.ok() && *again == *json);
  FUZZ_CHECK(WriteFileAtomically(dir + ".json", *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(dir + ".json");
  FUZZ_CHECK(tokenizer.ok());
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
  FUZZ_CHECK(encoding.ok());
  for (TokenId id : encoding->ids) FUZZ_CHECK(id < (*tokenizer)->vocab_size());
  // "▁" in the text decodes as a space, so only texts without it round-trip.
  if (text.find("\xE2\x96\x81") == std::string::npos) {
    absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoding->ids);
    FUZZ_CHECK(decoded.ok());
    FUZZ_CHECK(*decoded == text);
  }
  return 0;
}
