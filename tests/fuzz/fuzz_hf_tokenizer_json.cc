// Fuzz target: the Hugging Face tokenizer.json reader (BPE models, byte-level or classic, and WordPiece). Any bytes
// give a status or a tokenizer that encodes and decodes a sample text (see ExerciseTokenizer), and the fast path
// (model.vocab and model.merges scanned, tokenizer/formats/tokenizer_json_vocab.h) reads what the JSON DOM alone reads;
// its tokvec model file is written and read back, or refused (CheckedTokvecModel); its tokenizer.json is written
// and read back to the sample's ids, or refused (WriteHfTokenizerJson).
//
//   build-fuzz/fuzz_hf_tokenizer_json tests/fuzz/corpus/hf_tokenizer_json -max_total_time=30
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
  absl::StatusOr<TokenizerSpec> spec = ReadHfTokenizerJson(file, "fuzz/tokenizer.json");
  if (!spec.ok()) return 0;
  // The fast path (tokenizer_json_vocab.h) must read what the DOM alone reads.
  absl::StatusOr<TokenizerSpec> dom = ReadHfTokenizerJsonViaDom(file, "fuzz/tokenizer.json");
  if (!dom.ok() || dom->bpe.tokens() != spec->bpe.tokens() || dom->bpe.merges().size() != spec->bpe.merges().size() ||
      dom->wordpiece.size() != spec->wordpiece.size() || dom->special_tokens.size() != spec->special_tokens.size()) {
    __builtin_trap();
  }
  for (size_t rank = 0; rank < spec->bpe.merges().size(); ++rank) {
    if (dom->bpe.merges()[rank].left != spec->bpe.merges()[rank].left ||
        dom->bpe.merges()[rank].right != spec->bpe.merges()[rank].right) {
      __builtin_trap();
    }
  }
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(*std::move(spec));
  if (!tokenizer.ok()) return 0;
  fuzz::ExerciseTokenizer(**tokenizer, sample);
  // The model file of whatever loads: written and read back, or refused (a '##' prefix crashed the writer once).
  absl::StatusOr<std::string> model_file = CheckedTokvecModel(**tokenizer, "fuzz/saved.tokvec");
  if (!model_file.ok() && model_file.status().code() != absl::StatusCode::kFailedPrecondition) __builtin_trap();
  // Written back as tokenizer.json (convert --to json): refused by name, or read back to a tokenizer with the
  // sample's ids.
  absl::StatusOr<std::string> json = WriteHfTokenizerJson(**tokenizer);
  if (!json.ok()) {
    if (json.status().code() != absl::StatusCode::kFailedPrecondition) __builtin_trap();
    return 0;
  }
  absl::StatusOr<TokenizerSpec> again = ReadHfTokenizerJson(*json, "fuzz/written.json");
  if (!again.ok()) __builtin_trap();
  absl::StatusOr<std::unique_ptr<Tokenizer>> reloaded = Tokenizer::Create(*std::move(again));
  if (!reloaded.ok()) __builtin_trap();
  const EncodeOptions options{.allow_all_special = true};
  absl::StatusOr<Encoding> a = (*tokenizer)->Encode(sample, options);
  absl::StatusOr<Encoding> b = (*reloaded)->Encode(sample, options);
  if (a.ok() != b.ok() || (a.ok() && a->ids != b->ids)) __builtin_trap();
  return 0;
}
