// Reading optional string and integer fields of JSON objects from files users hand us, without exceptions.
//
//   const std::string type = OptionalString(node, "type");   // "" when absent, not a string, or node no object
//
// Why: nlohmann's node.value("type", "") throws type_error when the key holds a number or an object (or node is
// no object), and an uncaught exception ends the process; fuzz_hf_tokenizer_json found a tokenizer.json with a
// numeric "type" that did. Callers that need the field say what is wrong themselves.
#ifndef TOKVEC_BASE_JSON_FIELDS_H_
#define TOKVEC_BASE_JSON_FIELDS_H_

#include <cstdint>
#include <limits>
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

// node[key] when node is an object holding an integer there that fits int64_t, else `fallback`.
inline int64_t OptionalInt(const nlohmann::json& node, const std::string& key, int64_t fallback) {
  if (!node.is_object()) return fallback;
  const auto it = node.find(key);
  if (it == node.end() || !it->is_number_integer()) return fallback;
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return fallback;
  }
  return it->get<int64_t>();
}

}  // namespace tokvec

#endif  // TOKVEC_BASE_JSON_FIELDS_H_
