// Placeholder until the tokenizer.json reader and writer land.
#include "tokenizer/formats.h"

namespace tokvec {

absl::StatusOr<TokenizerSpec> ReadHfTokenizerJson(std::string_view, const std::string& path) {
  return absl::UnimplementedError("reading tokenizer.json is not built yet: " + path);
}
absl::StatusOr<std::string> WriteHfTokenizerJson(const Tokenizer&) {
  return absl::UnimplementedError("writing tokenizer.json is not built yet");
}

}  // namespace tokvec
