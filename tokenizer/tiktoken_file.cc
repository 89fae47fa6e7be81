// Placeholder until the .tiktoken reader lands.
#include "tokenizer/formats.h"

namespace tokvec {

absl::StatusOr<TokenizerSpec> ReadTiktoken(std::string_view, const std::string& path, const std::string&) {
  return absl::UnimplementedError("reading .tiktoken files is not built yet: " + path);
}
absl::StatusOr<std::string> WriteTiktoken(const Tokenizer&) {
  return absl::UnimplementedError("writing .tiktoken files is not built yet");
}

}  // namespace tokvec
