#include "tokenizer/text/tokenizer_json_fields.h"

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

using Json = nlohmann::json;

absl::Status HfKeyError(const std::string& path, const std::string& key, const std::string& what) {
  return absl::InvalidArgumentError(fmt::format("{}: key '{}': {}", path, key, what));
}

absl::StatusOr<std::string> HfStringField(const Json& node, const char* name, const std::string& path,
                                          const std::string& key) {
  if (!node.contains(name) || !node[name].is_string()) {
    return HfKeyError(path, fmt::format("{}.{}", key, name), "missing or not a string");
  }
  return node[name].get<std::string>();
}

absl::StatusOr<bool> HfBoolField(const Json& node, const char* name, bool fallback, const std::string& path,
                                 const std::string& key) {
  if (!node.contains(name) || node[name].is_null()) return fallback;
  if (!node[name].is_boolean()) return HfKeyError(path, fmt::format("{}.{}", key, name), "expected true or false");
  return node[name].get<bool>();
}

absl::StatusOr<std::string> HfCharField(const Json& node, const char* name, const std::string& path,
                                        const std::string& key) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, HfStringField(node, name, path, key));
  if (text.empty() || Utf8SequenceLength(text, 0) != text.size()) {
    return HfKeyError(path, fmt::format("{}.{}", key, name), fmt::format("expected one character, got '{}'", text));
  }
  return text;
}

absl::StatusOr<TextPattern> HfPatternField(const Json& node, const std::string& path, const std::string& key) {
  const std::string where = key + ".pattern";
  if (!node.contains("pattern") || !node["pattern"].is_object() || node["pattern"].size() != 1) {
    return HfKeyError(path, where, "expected {\"String\": \"...\"} or {\"Regex\": \"...\"}");
  }
  const Json& pattern = node["pattern"];
  absl::StatusOr<TextPattern> result = absl::InvalidArgumentError("expected {\"String\": \"...\"} or {\"Regex\": \"...\"}");
  if (pattern.contains("String") && pattern["String"].is_string()) {
    result = TextPattern::Literal(pattern["String"].get<std::string>());
  } else if (pattern.contains("Regex") && pattern["Regex"].is_string()) {
    result = TextPattern::Regex(pattern["Regex"].get<std::string>());
  }
  if (!result.ok()) return HfKeyError(path, where, std::string(result.status().message()));
  return result;
}

}  // namespace tokvec
