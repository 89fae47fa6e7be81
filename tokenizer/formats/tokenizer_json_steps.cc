#include "tokenizer/formats/tokenizer_json_steps.h"

#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/normalizers/edit_normalizers.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

absl::Status Bad(const std::string& path, const std::string& key, const std::string& what) {
  return absl::InvalidArgumentError(fmt::format("{}: key '{}': {}", path, key, what));
}

absl::StatusOr<std::string> StringField(const Json& node, const char* name, const std::string& path,
                                        const std::string& key) {
  if (!node.contains(name) || !node[name].is_string()) {
    return Bad(path, fmt::format("{}.{}", key, name), "missing or not a string");
  }
  return node[name].get<std::string>();
}

absl::StatusOr<bool> BoolField(const Json& node, const char* name, bool fallback, const std::string& path,
                               const std::string& key) {
  if (!node.contains(name) || node[name].is_null()) return fallback;
  if (!node[name].is_boolean()) return Bad(path, fmt::format("{}.{}", key, name), "expected true or false");
  return node[name].get<bool>();
}

// One character (one code point), as Hugging Face's `char` fields require.
absl::StatusOr<std::string> CharField(const Json& node, const char* name, const std::string& path,
                                      const std::string& key) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, StringField(node, name, path, key));
  if (text.empty() || Utf8SequenceLength(text, 0) != text.size()) {
    return Bad(path, fmt::format("{}.{}", key, name), fmt::format("expected one character, got '{}'", text));
  }
  return text;
}

absl::StatusOr<TextPattern> PatternField(const Json& node, const std::string& path, const std::string& key) {
  const std::string where = key + ".pattern";
  if (!node.contains("pattern") || !node["pattern"].is_object() || node["pattern"].size() != 1) {
    return Bad(path, where, "expected {\"String\": \"...\"} or {\"Regex\": \"...\"}");
  }
  const Json& pattern = node["pattern"];
  absl::StatusOr<TextPattern> result = absl::InvalidArgumentError("expected {\"String\": \"...\"} or {\"Regex\": \"...\"}");
  if (pattern.contains("String") && pattern["String"].is_string()) {
    result = TextPattern::Literal(pattern["String"].get<std::string>());
  } else if (pattern.contains("Regex") && pattern["Regex"].is_string()) {
    result = TextPattern::Regex(pattern["Regex"].get<std::string>());
  }
  if (!result.ok()) return Bad(path, where, std::string(result.status().message()));
  return result;
}

absl::StatusOr<std::unique_ptr<DecoderStep>> ReadDecoderStep(const Json& node, const std::string& path,
                                                             const std::string& key,
                                                             std::vector<std::unique_ptr<DecoderStep>>* steps) {
  if (!node.is_object() || !node.contains("type") || !node["type"].is_string()) {
    return Bad(path, key, "expected an object with a \"type\"");
  }
  const std::string type = node["type"].get<std::string>();
  if (type == "Replace") {
    TOKVEC_ASSIGN_OR_RETURN(TextPattern pattern, PatternField(node, path, key));
    TOKVEC_ASSIGN_OR_RETURN(std::string content, StringField(node, "content", path, key));
    return MakeReplaceDecoder(std::move(pattern), std::move(content));
  }
  if (type == "ByteFallback") return MakeByteFallbackDecoder();
  if (type == "Fuse") return MakeFuseDecoder();
  if (type == "ByteLevel") return MakeByteLevelDecoder();
  if (type == "Strip") {
    TOKVEC_ASSIGN_OR_RETURN(std::string content, CharField(node, "content", path, key));
    size_t counts[2];
    const char* names[2] = {"start", "stop"};
    for (int i = 0; i < 2; ++i) {
      if (!node.contains(names[i]) || !node[names[i]].is_number_unsigned()) {
        return Bad(path, fmt::format("{}.{}", key, names[i]), "expected a non-negative integer");
      }
      counts[i] = node[names[i]].get<size_t>();
    }
    return MakeStripDecoder(std::move(content), counts[0], counts[1]);
  }
  if (type == "Metaspace") {
    TOKVEC_ASSIGN_OR_RETURN(std::string replacement, CharField(node, "replacement", path, key));
    // prepend_scheme "always" / "first" / "never"; older files have add_prefix_space instead.
    bool strip_first = true;
    if (node.contains("prepend_scheme") && !node["prepend_scheme"].is_null()) {
      const Json& scheme = node["prepend_scheme"];
      if (!scheme.is_string() || (scheme != "always" && scheme != "first" && scheme != "never")) {
        return Bad(path, key + ".prepend_scheme", "expected \"always\", \"first\" or \"never\"");
      }
      strip_first = scheme != "never";
    } else {
      TOKVEC_ASSIGN_OR_RETURN(strip_first, BoolField(node, "add_prefix_space", true, path, key));
    }
    TOKVEC_ASSIGN_OR_RETURN(bool split, BoolField(node, "split", true, path, key));
    (void)split;  // Splitting matters to the pre-tokenizer only.
    return MakeMetaspaceDecoder(std::move(replacement), strip_first);
  }
  if (type == "WordPiece") {
    WordPieceDecoder decoder;
    if (node.contains("prefix")) {
      TOKVEC_ASSIGN_OR_RETURN(decoder.prefix, StringField(node, "prefix", path, key));
    }
    TOKVEC_ASSIGN_OR_RETURN(decoder.cleanup, BoolField(node, "cleanup", true, path, key));
    return MakeWordPieceDecoderStep(std::move(decoder));
  }
  if (type == "BPEDecoder") {
    std::string suffix = "</w>";  // Hugging Face's default.
    if (node.contains("suffix")) {
      TOKVEC_ASSIGN_OR_RETURN(suffix, StringField(node, "suffix", path, key));
    }
    // Hugging Face's replace("") would put a space between every two characters: refused.
    if (suffix.empty()) return Bad(path, key + ".suffix", "expected a non-empty string");
    return MakeBpeSuffixDecoder(std::move(suffix));
  }
  if (type == "Sequence") {
    if (!node.contains("decoders") || !node["decoders"].is_array()) {
      return Bad(path, key + ".decoders", "missing or not an array");
    }
    for (size_t i = 0; i < node["decoders"].size(); ++i) {
      const std::string item = fmt::format("{}.decoders[{}]", key, i);
      TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<DecoderStep> step, ReadDecoderStep(node["decoders"][i], path, item, steps));
      if (step != nullptr) steps->push_back(std::move(step));
    }
    return std::unique_ptr<DecoderStep>();
  }
  return Bad(path, key + ".type",
             fmt::format("decoder '{}' is not supported (supported: Replace, ByteFallback, Fuse, Strip, Metaspace, "
                         "ByteLevel, WordPiece, BPEDecoder, Sequence)",
                         type));
}

}  // namespace

bool IsHfTextNormalizer(std::string_view type) { return type == "Prepend" || type == "Replace" || type == "Strip"; }

absl::StatusOr<std::unique_ptr<Normalizer>> ReadHfTextNormalizer(const Json& node, const std::string& path,
                                                                 const std::string& key) {
  const std::string type = node["type"].get<std::string>();
  if (type == "Prepend") {
    TOKVEC_ASSIGN_OR_RETURN(std::string prepend, StringField(node, "prepend", path, key));
    return MakePrependNormalizer(std::move(prepend));
  }
  if (type == "Replace") {
    TOKVEC_ASSIGN_OR_RETURN(TextPattern pattern, PatternField(node, path, key));
    TOKVEC_ASSIGN_OR_RETURN(std::string content, StringField(node, "content", path, key));
    return MakeReplaceNormalizer(std::move(pattern), std::move(content));
  }
  TOKVEC_ASSIGN_OR_RETURN(bool left, BoolField(node, "strip_left", false, path, key));
  TOKVEC_ASSIGN_OR_RETURN(bool right, BoolField(node, "strip_right", false, path, key));
  return MakeStripNormalizer(left, right);
}

absl::StatusOr<std::unique_ptr<TokenDecoder>> ReadHfDecoder(const Json& node, const std::string& path) {
  std::vector<std::unique_ptr<DecoderStep>> steps;
  if (node.is_null()) return std::make_unique<TokenDecoder>(std::move(steps), /*no_decoder=*/true);
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<DecoderStep> step, ReadDecoderStep(node, path, "decoder", &steps));
  if (step != nullptr) steps.push_back(std::move(step));
  return std::make_unique<TokenDecoder>(std::move(steps));
}

}  // namespace tokvec
