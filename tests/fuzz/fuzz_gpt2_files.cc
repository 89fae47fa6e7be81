// Fuzz target: GPT-2's vocab.json + merges.txt reader. Any bytes give a status or a tokenizer that encodes and
// decodes a sample text (see ExerciseTokenizer).
//
//   build-fuzz/fuzz_gpt2_files tests/fuzz/corpus/gpt2_files -max_total_time=30
//
// Input layout: vocab.json text "\n#\n" merges.txt text, then optionally "\n#\n" and a sample text. The two files
// are written to a scratch folder because the reader takes paths.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_models.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/formats/formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t at = input.find("\n#\n");
  std::string_view vocab = at == std::string_view::npos ? input : input.substr(0, at);
  std::string_view rest = at == std::string_view::npos ? std::string_view() : input.substr(at + 3);
  auto [merges, sample] = fuzz::SplitSample(rest);
  const std::string& dir = FuzzScratchDir("tokvec_fuzz_gpt2_");
  FuzzWriteBytes(dir + "/vocab.json", vocab);
  FuzzWriteBytes(dir + "/merges.txt", merges);
  absl::StatusOr<TokenizerSpec> spec = ReadGpt2VocabAndMerges(dir + "/vocab.json", dir + "/merges.txt");
  if (!spec.ok()) return 0;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(*std::move(spec));
  if (!tokenizer.ok()) return 0;
  fuzz::ExerciseTokenizer(**tokenizer, sample);
  return 0;
}
