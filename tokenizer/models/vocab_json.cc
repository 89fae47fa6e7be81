#include "tokenizer/models/vocab_json.h"

#include "nlohmann/json.hpp"

namespace tokvec {

std::string JsonString(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string VocabJsonObject(size_t size, absl::FunctionRef<std::string_view(TokenId)> spelling) {
  std::string out = "{";
  for (size_t id = 0; id < size; ++id) {
    const std::string_view text = spelling(static_cast<TokenId>(id));
    if (text.empty()) continue;
    if (out.size() > 1) out += ',';
    out += JsonString(text);
    out += ':';
    out += std::to_string(id);
  }
  out += '}';
  return out;
}

}  // namespace tokvec
