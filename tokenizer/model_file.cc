// Placeholder until the tokvec model file lands.
#include "tokenizer/formats.h"

namespace tokvec {

absl::StatusOr<TokenizerSpec> ReadTokvecModel(std::string_view, const std::string& path) {
  return absl::UnimplementedError("reading tokvec model files is not built yet: " + path);
}
std::string WriteTokvecModel(const Tokenizer&) { return ""; }

}  // namespace tokvec
