// Fuzz target: train a WordPiece vocabulary (tokenizer/trainers/wordpiece_trainer.h) on the fuzz text itself with
// each criterion, load the tokenizer.json it writes and encode the text: every id is in the vocabulary, and no
// [UNK] comes out unless a word was left out of training (over 100 characters). Invalid UTF-8 must be an error;
// training with 1 and 2 threads must write the same file.
//
//   build-fuzz/fuzz_train_wordpiece tests/fuzz/corpus/train_wordpiece -max_total_time=30
//
// Input layout (FuzzedDataProvider, integers from the end): the text, then the criterion and the vocabulary size
// above the minimum.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "base/file_io.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/wordpiece_trainer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  if (size > 4096) return 0;  // keep each run short
  FuzzedDataProvider fdp(data, size);
  const size_t extra = fdp.ConsumeIntegralInRange<size_t>(0, 300);
  const auto criterion = static_cast<WordPieceCriterion>(fdp.ConsumeIntegralInRange<int>(0, 2));
  const std::string text = fdp.ConsumeRemainingBytesAsString();
  static const std::string dir = "/tmp/tokvec_fuzz_wordpiece_" + std::to_string(getpid());
  FUZZ_CHECK(WriteFileAtomically(dir + ".txt", text).ok());

  // Every character in two forms fits in 5 + 2 · 4096 ids.
  const WordPieceOptions options{.vocab_size = 5 + 2 * 4096 + extra, .criterion = criterion};
  WordPieceReport report;
  absl::StatusOr<std::string> json = TrainWordPiece({dir + ".txt"}, options, &report);
  if (FindInvalidUtf8(text).has_value()) {
    FUZZ_CHECK(!json.ok());
    return 0;
  }
  if (!json.ok()) {  // no words at all, or only words over 100 characters
    const std::string message(json.status().message());
    FUZZ_CHECK(message.find("no text to learn from") != std::string::npos ||
               message.find("no words to learn from") != std::string::npos);
    return 0;
  }
  WordPieceOptions two = options;
  two.threads = 2;
  absl::StatusOr<std::string> again = TrainWordPiece({dir + ".txt"}, two);
  FUZZ_CHECK(again.ok() && *again == *json);
  FUZZ_CHECK(WriteFileAtomically(dir + ".json", *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(dir + ".json");
  FUZZ_CHECK(tokenizer.ok());
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
  FUZZ_CHECK(encoding.ok());
  for (TokenId id : encoding->ids) {
    FUZZ_CHECK(id < (*tokenizer)->vocab_size());
    if (report.dropped_words == 0) FUZZ_CHECK(id != 1);  // [UNK]
  }
  return 0;
}
