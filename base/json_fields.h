// Reading optional string fields of JSON objects from files users hand us, without exceptions.
//
//   const std::string type = OptionalString(node, "type");   // "" when absent, not a string, or node no object
//
// Why: nlohmann's node.value("type", "") throws type_error when the key holds a number or an object (or node is
// no object), and an uncaught exception ends the process; fuzz_hf_tokenizer_json found a tokenizer.json with a
// numeric "type" that did. Callers that need the field say what is wrong themselves.
#ifndef TOKVEC_BASE_JSON_FIELDS_H_
#define TOKVEC_BASE_JSON_FIELDS_H_

#include <string>

#include "nlohmann/json.hpp"

namespace tokvec {

// node[key] when node is an object holding a string there, else `fallback`.
inline std::string OptionalString(const nlohmann::json& node, const std::string& key,
                                  const std::string& fallback = "") {
  if (!node.is_object()) return fallback;
  const auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace tokvec

#endif  // TOKVEC_BASE_JSON_FIELDS_H_
