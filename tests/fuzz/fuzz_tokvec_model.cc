// Fuzz target: tokvec's own model file reader (word and byte models). Any bytes give a status or a tokenizer that
// encodes and decodes a sample text (see ExerciseTokenizer).
//
//   build-fuzz/fuzz_tokvec_model tests/fuzz/corpus/tokvec_model -max_total_time=30
//
// Input layout: the file's text, then a sample text after the last "\n#\n" (absent: a fixed sample).
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_models.h"
#include "tokenizer/formats/formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto [file, sample] = fuzz::SplitSample(input);
  absl::StatusOr<TokenizerSpec> spec = ReadTokvecModel(file, "fuzz.tokvec");
  if (!spec.ok()) return 0;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(*std::move(spec));
  if (!tokenizer.ok()) return 0;
  fuzz::ExerciseTokenizer(**tokenizer, sample);
  return 0;
}
