// Placeholder until the vocab.json + merges.txt reader lands.
#include "tokenizer/formats.h"

namespace tokvec {

absl::StatusOr<TokenizerSpec> ReadGpt2VocabAndMerges(const std::string& vocab_json_path, const std::string&) {
  return absl::UnimplementedError("reading vocab.json is not built yet: " + vocab_json_path);
}

}  // namespace tokvec
