// Fuzz target: train a model on the fuzz text itself, then encode and decode that text.
//   - word model (whitespace words, `</w>`): every code point is in the alphabet, so decode(encode(text)) is the
//     text's words joined by single spaces; invalid UTF-8 must be an error, for counting and for encoding.
//   - byte model (a tiktoken preset split): decode(encode(text)) == text for any bytes.
// Training with 1 and 2 threads must give the same merges (determinism).
//
//   build-fuzz/fuzz_train_roundtrip tests/fuzz/corpus/train_roundtrip -max_total_time=30
//
// Input layout (FuzzedDataProvider, integers from the end): the text, then model type, preset, merges, special.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {
namespace {

std::unique_ptr<PreTokenizer> MakePreTokenizer(ModelType type, uint8_t preset) {
  if (type == ModelType::kWord) return std::make_unique<WhitespacePreTokenizer>();
  static const char* const kPresets[] = {"gpt2", "cl100k", "o200k"};
  absl::StatusOr<std::unique_ptr<PreTokenizer>> split = MakeSplitPreTokenizer(kPresets[preset % 3]);
  FUZZ_CHECK(split.ok());
  return *std::move(split);
}

// The words of `text` (maximal runs without White_Space) joined by one space: what a word model decodes to.
std::string JoinedWords(const std::string& text) {
  WhitespacePreTokenizer split;
  std::vector<Piece> pieces;
  FUZZ_CHECK(split.Split(text, &pieces).ok());
  std::string joined;
  for (const Piece& piece : pieces) {
    if (!joined.empty()) joined += ' ';
    joined.append(text, piece.begin, piece.end - piece.begin);
  }
  return joined;
}

}  // namespace
}  // namespace tokvec

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  if (size > 4096) return 0;  // Training is superlinear in the distinct words; keep each run short.
  FuzzedDataProvider fdp(data, size);
  const ModelType type = fdp.ConsumeBool() ? ModelType::kByte : ModelType::kWord;
  const uint8_t preset = fdp.ConsumeIntegral<uint8_t>();
  const size_t merges = fdp.ConsumeIntegralInRange<size_t>(0, 64);
  const bool with_special = fdp.ConsumeBool();
  const std::string text = fdp.ConsumeRemainingBytesAsString();

  std::unique_ptr<PreTokenizer> pre_tokenizer = MakePreTokenizer(type, preset);
  WordCounterOptions count_options{.pre_tokenizer = pre_tokenizer.get(), .require_utf8 = type == ModelType::kWord};
  absl::StatusOr<std::vector<WordCount>> words = CountWordsInText(text, count_options, "fuzz.txt");
  const bool valid_utf8 = !FindInvalidUtf8(text).has_value();
  if (type == ModelType::kWord && !valid_utf8) {
    FUZZ_CHECK(!words.ok());
    return 0;
  }
  FUZZ_CHECK(words.ok());

  BpeTrainerOptions options{.type = type, .merges = merges};
  if (with_special) options.special_tokens = {"<|endoftext|>"};
  absl::StatusOr<TrainedBpe> trained = TrainBpe(*words, options);
  FUZZ_CHECK(trained.ok());
  options.threads = 2;
  absl::StatusOr<TrainedBpe> trained2 = TrainBpe(*words, options);
  FUZZ_CHECK(trained2.ok());
  FUZZ_CHECK(trained->tokens == trained2->tokens);
  FUZZ_CHECK(trained->merges.size() == trained2->merges.size());
  for (size_t i = 0; i < trained->merges.size(); ++i) {
    FUZZ_CHECK(trained->merges[i].left == trained2->merges[i].left);
    FUZZ_CHECK(trained->merges[i].right == trained2->merges[i].right);
  }

  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      MakeTrainedTokenizer(*std::move(trained), MakePreTokenizer(type, preset), nullptr);
  FUZZ_CHECK(tokenizer.ok());
  absl::StatusOr<Encoding> encoding = (*tokenizer)->Encode(text);
  FUZZ_CHECK(encoding.ok());
  for (TokenId id : encoding->ids) FUZZ_CHECK(id < (*tokenizer)->vocab_size());
  absl::StatusOr<std::string> decoded = (*tokenizer)->Decode(encoding->ids);
  FUZZ_CHECK(decoded.ok());
  if (type == ModelType::kByte) {
    FUZZ_CHECK(*decoded == text);
  } else {
    FUZZ_CHECK(*decoded == JoinedWords(text));
  }
  return 0;
}
