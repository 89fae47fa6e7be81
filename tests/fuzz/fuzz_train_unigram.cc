// Fuzz target: train a Unigram vocabulary (tokenizer/trainers/unigram_trainer.h) on the fuzz text itself, with or
// without byte fallback, digit splitting and a user-defined symbol ("@-@", never inside a learned piece), load the tokenizer.json it writes and encode the text: every id is in
// the vocabulary and every learned piece is at most the longest piece asked for. Invalid UTF-8 must be an error;
// training with 1 and 2 threads must write the same file.
//
//   build-fuzz/fuzz_train_unigram tests/fuzz/corpus/train_unigram -max_total_time=30
//
// Input layout (FuzzedDataProvider, integers from the end): the text, then the flags, the longest piece and the
// vocabulary size above the minimum.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "base/file_io.h"
#include "nlohmann/json.hpp"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/unigram_trainer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  if (size > 4096) return 0;  // keep each run short
  FuzzedDataProvider fdp(data, size);
  const size_t extra = fdp.ConsumeIntegralInRange<size_t>(0, 300);
  const size_t longest = fdp.ConsumeIntegralInRange<size_t>(1, 20);
  const uint8_t flags = fdp.ConsumeIntegral<uint8_t>();
  const std::string text = fdp.ConsumeRemainingBytesAsString();
  static const std::string dir = "/tmp/tokvec_fuzz_unigram_" + std::to_string(getpid());
  FUZZ_CHECK(WriteFileAtomically(dir + ".txt", text).ok());

  // Every character (at most 4096) fits beside the special and byte tokens.
  const bool user_defined = (flags & 8) != 0;
  UnigramTrainerOptions options{.vocab_size = 3 + 1 + 256 + 4096 + extra,
                                .character_coverage = (flags & 4) ? 0.9 : 1.0,
                                .max_piece_length = longest,
                                .byte_fallback = (flags & 1) != 0,
                                .split_digits = (flags & 2) != 0};
  if (user_defined) options.user_defined_symbols = {"@-@"};
  absl::StatusOr<std::string> json = TrainUnigram({dir + ".txt"}, options);
  if (FindInvalidUtf8(text).has_value()) {
    FUZZ_CHECK(!json.ok());
    return 0;
  }
  if (!json.ok()) {
    const std::string message(json.status().message());
    FUZZ_CHECK(message.find("no text to learn from") != std::string::npos);
    return 0;
  }
  UnigramTrainerOptions two = options;
  two.threads = 2;
  absl::StatusOr<std::string> again = TrainUnigram({dir + ".txt"}, two);
  FUZZ_CHECK(again.ok() && *again == *json);
  const nlohmann::json parsed = nlohmann::json::parse(*json);
  const size_t reserved = 3 + (user_defined ? 1 : 0) + (options.byte_fallback ? 256 : 0);
  for (size_t id = reserved; id < parsed["model"]["vocab"].size(); ++id) {
    const std::string piece = parsed["model"]["vocab"][id][0];
    FUZZ_CHECK(!user_defined || piece.find("@-@") == std::string::npos);
    size_t chars = 0, len = 0;
    for (size_t i = 0; i < piece.size(); i += len) {
      DecodeUtf8OrReplacement(piece, i, &len);
      ++chars;
    }
    FUZZ_CHECK(chars <= longest || chars == 1);
  }
  FUZZ_CHECK(WriteFileAtomically(dir + ".json", *json).ok());
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Load(dir + ".json");
  FUZZ_CHECK(tokenizer.ok());
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
  FUZZ_CHECK(encoding.ok());
  for (TokenId id : encoding->ids) FUZZ_CHECK(id < (*tokenizer)->vocab_size());
  return 0;
}
