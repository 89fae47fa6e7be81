#include "tokenizer/decoders/decoder_json.h"

#include <utility>
#include <vector>

#include "base/json_fields.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/decoders/wordpiece_decoder.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

bool HasString(const Json& node, const char* name) { return node.contains(name) && node[name].is_string(); }
bool HasBool(const Json& node, const char* name) { return node.contains(name) && node[name].is_boolean(); }
bool HasUnsigned(const Json& node, const char* name) {
  return node.contains(name) && node[name].is_number_unsigned();
}

// Whether node[name] is one character (a Rust char: one UTF-8 code point).
bool HasChar(const Json& node, const char* name) {
  if (!HasString(node, name)) return false;
  const std::string text = node[name].get<std::string>();
  if (text.empty()) return false;
  const unsigned char lead = static_cast<unsigned char>(text[0]);
  const size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  return text.size() == length;
}

// The kind Hugging Face reads a decoder object as (tokenizers/src/decoders/mod.rs): its "type" when that is one
// of Hugging Face's decoder names; else (older files have none) the first kind of its untagged fallback whose
// fields are all there, in its order: BPEDecoder {suffix}, WordPiece {prefix, cleanup}, CTC {pad_token,
// word_delimiter_token, cleanup}, Replace {pattern, content}, Strip {content (one character), start, stop} (the
// other kinds need their "type"). Else the "type" as it is (for the message), empty without one.
std::string HfDecoderKind(const Json& node) {
  const std::string type = HasString(node, "type") ? node["type"].get<std::string>() : "";
  for (const char* known : {"BPEDecoder", "ByteLevel", "WordPiece", "Metaspace", "CTC", "Sequence", "Replace", "Fuse",
                            "Strip", "ByteFallback"}) {
    if (type == known) return type;
  }
  if (HasString(node, "suffix")) return "BPEDecoder";
  if (HasString(node, "prefix") && HasBool(node, "cleanup")) return "WordPiece";
  if (HasString(node, "pad_token") && HasString(node, "word_delimiter_token") && HasBool(node, "cleanup")) return "CTC";
  if (node.contains("pattern") && node["pattern"].is_object() && node["pattern"].size() == 1 &&
      (HasString(node["pattern"], "String") || HasString(node["pattern"], "Regex")) && HasString(node, "content")) {
    return "Replace";
  }
  if (HasChar(node, "content") && HasUnsigned(node, "start") && HasUnsigned(node, "stop")) return "Strip";
  return type;
}

// One decoder object at `key`; a Sequence appends its steps to `steps` and gives nullptr.
absl::StatusOr<std::unique_ptr<DecoderStep>> ReadDecoderStep(const Json& node, const std::string& path,
                                                             const std::string& key,
                                                             std::vector<std::unique_ptr<DecoderStep>>* steps) {
  const std::string type = node.is_object() ? HfDecoderKind(node) : "";
  if (type.empty()) {
    return HfKeyError(path, key,
                      "expected an object with a \"type\" (or, without one, the fields of BPEDecoder, WordPiece, "
                      "Replace or Strip)");
  }
  if (type == "Replace") {
    TOKVEC_ASSIGN_OR_RETURN(TextPattern pattern, HfPatternField(node, path, key));
    TOKVEC_ASSIGN_OR_RETURN(std::string content, HfStringField(node, "content", path, key));
    return MakeReplaceDecoder(std::move(pattern), std::move(content));
  }
  if (type == "ByteFallback") return MakeByteFallbackDecoder();
  if (type == "Fuse") return MakeFuseDecoder();
  if (type == "ByteLevel") return MakeByteLevelDecoder();
  if (type == "Strip") {
    TOKVEC_ASSIGN_OR_RETURN(std::string content, HfCharField(node, "content", path, key));
    size_t counts[2];
    const char* names[2] = {"start", "stop"};
    for (int i = 0; i < 2; ++i) {
      if (!node.contains(names[i]) || !node[names[i]].is_number_unsigned()) {
        return HfKeyError(path, fmt::format("{}.{}", key, names[i]), "expected a non-negative integer");
      }
      counts[i] = node[names[i]].get<size_t>();
    }
    return MakeStripDecoder(std::move(content), counts[0], counts[1]);
  }
  if (type == "Metaspace") {
    TOKVEC_ASSIGN_OR_RETURN(std::string replacement, HfCharField(node, "replacement", path, key));
    // prepend_scheme "always" / "first" / "never"; older files have add_prefix_space instead.
    bool strip_first = true;
    if (node.contains("prepend_scheme") && !node["prepend_scheme"].is_null()) {
      const Json& scheme = node["prepend_scheme"];
      if (!scheme.is_string() || (scheme != "always" && scheme != "first" && scheme != "never")) {
        return HfKeyError(path, key + ".prepend_scheme", "expected \"always\", \"first\" or \"never\"");
      }
      strip_first = scheme != "never";
    } else {
      TOKVEC_ASSIGN_OR_RETURN(strip_first, HfBoolField(node, "add_prefix_space", true, path, key));
    }
    TOKVEC_ASSIGN_OR_RETURN(bool split, HfBoolField(node, "split", true, path, key));
    (void)split;  // Splitting matters to the pre-tokenizer only.
    return MakeMetaspaceDecoder(std::move(replacement), strip_first);
  }
  if (type == "WordPiece") {
    WordPieceDecoder decoder;
    if (node.contains("prefix")) {
      TOKVEC_ASSIGN_OR_RETURN(decoder.prefix, HfStringField(node, "prefix", path, key));
    }
    TOKVEC_ASSIGN_OR_RETURN(decoder.cleanup, HfBoolField(node, "cleanup", true, path, key));
    return MakeWordPieceDecoderStep(std::move(decoder));
  }
  if (type == "BPEDecoder") {
    std::string suffix = "</w>";  // Hugging Face's default.
    if (node.contains("suffix")) {
      TOKVEC_ASSIGN_OR_RETURN(suffix, HfStringField(node, "suffix", path, key));
    }
    // Hugging Face's replace("") would put a space between every two characters: refused.
    if (suffix.empty()) return HfKeyError(path, key + ".suffix", "expected a non-empty string");
    return MakeBpeSuffixDecoder(std::move(suffix));
  }
  if (type == "Sequence") {
    if (!node.contains("decoders") || !node["decoders"].is_array()) {
      return HfKeyError(path, key + ".decoders", "missing or not an array");
    }
    for (size_t i = 0; i < node["decoders"].size(); ++i) {
      const std::string item = fmt::format("{}.decoders[{}]", key, i);
      TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<DecoderStep> step, ReadDecoderStep(node["decoders"][i], path, item, steps));
      if (step != nullptr) steps->push_back(std::move(step));
    }
    return std::unique_ptr<DecoderStep>();
  }
  return HfKeyError(path, key + ".type",
             fmt::format("decoder '{}' is not supported (supported: Replace, ByteFallback, Fuse, Strip, Metaspace, "
                         "ByteLevel, WordPiece, BPEDecoder, Sequence)",
                         type));
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenDecoder>> ReadHfDecoder(const Json& node, const std::string& path) {
  std::vector<std::unique_ptr<DecoderStep>> steps;
  if (node.is_null()) return std::make_unique<TokenDecoder>(std::move(steps), /*no_decoder=*/true);
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<DecoderStep> step, ReadDecoderStep(node, path, "decoder", &steps));
  if (step != nullptr) steps.push_back(std::move(step));
  return std::make_unique<TokenDecoder>(std::move(steps));
}

absl::StatusOr<std::optional<WordPieceDecoder>> ReadHfWordPieceDecoder(const Json* node, const std::string& path) {
  if (node == nullptr || node->is_null()) return std::nullopt;
  const Json& decoder = *node;
  if (!decoder.is_object() || HfDecoderKind(decoder) != "WordPiece") {
    return HfKeyError(path, "decoder",
                      fmt::format("decoder {} is not supported with WordPiece (supported: WordPiece, null)",
                                  decoder.dump()));
  }
  WordPieceDecoder wordpiece_decoder;
  if (decoder.contains("prefix")) {
    if (!decoder["prefix"].is_string()) return HfKeyError(path, "decoder.prefix", "expected a string");
    wordpiece_decoder.prefix = decoder["prefix"].get<std::string>();
  }
  if (decoder.contains("cleanup")) {
    if (!decoder["cleanup"].is_boolean()) return HfKeyError(path, "decoder.cleanup", "expected true or false");
    wordpiece_decoder.cleanup = decoder["cleanup"].get<bool>();
  }
  return wordpiece_decoder;
}

}  // namespace tokvec
