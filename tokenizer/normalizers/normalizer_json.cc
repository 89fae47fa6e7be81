#include "tokenizer/normalizers/normalizer_json.h"

#include <string_view>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/normalizers/edit_normalizers.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/normalizers/precompiled_normalizer.h"
#include "tokenizer/normalizers/sequence_normalizer.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

// Prepend, Replace and Strip (edit_normalizers.h).
bool IsEditNormalizer(std::string_view type) { return type == "Prepend" || type == "Replace" || type == "Strip"; }

absl::StatusOr<std::unique_ptr<Normalizer>> ReadEditNormalizer(const Json& node, const std::string& type,
                                                               const std::string& path, const std::string& key) {
  if (type == "Prepend") {
    TOKVEC_ASSIGN_OR_RETURN(std::string prepend, HfStringField(node, "prepend", path, key));
    return MakePrependNormalizer(std::move(prepend));
  }
  if (type == "Replace") {
    TOKVEC_ASSIGN_OR_RETURN(TextPattern pattern, HfPatternField(node, path, key));
    TOKVEC_ASSIGN_OR_RETURN(std::string content, HfStringField(node, "content", path, key));
    return MakeReplaceNormalizer(std::move(pattern), std::move(content));
  }
  TOKVEC_ASSIGN_OR_RETURN(bool left, HfBoolField(node, "strip_left", false, path, key));
  TOKVEC_ASSIGN_OR_RETURN(bool right, HfBoolField(node, "strip_right", false, path, key));
  return MakeStripNormalizer(left, right);
}

// Turns the pending ICU step names into one normalizer at the end of `parts` (the edit and Precompiled
// normalizers come between them).
absl::Status FlushNormalizerSteps(std::vector<std::string>* steps, std::vector<std::unique_ptr<Normalizer>>* parts) {
  std::string name;
  for (const std::string& step : *steps) name += (name.empty() ? "" : "+") + step;
  steps->clear();
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> part, MakeNormalizer(name));
  if (part != nullptr) parts->push_back(std::move(part));
  return absl::OkStatus();
}

// A Precompiled normalizer {"type": "Precompiled", "precompiled_charsmap": base64} at `key`.
absl::StatusOr<std::unique_ptr<Normalizer>> ReadPrecompiled(const Json& node, const std::string& path,
                                                            const std::string& key) {
  if (!node.contains("precompiled_charsmap") || !node["precompiled_charsmap"].is_string()) {
    return HfKeyError(path, key + ".precompiled_charsmap", "expected a base64 string");
  }
  absl::StatusOr<std::unique_ptr<PrecompiledNormalizer>> precompiled =
      PrecompiledNormalizer::FromBase64(node["precompiled_charsmap"].get<std::string>());
  if (!precompiled.ok()) {
    return HfKeyError(path, key + ".precompiled_charsmap", std::string(precompiled.status().message()));
  }
  return std::unique_ptr<Normalizer>(std::move(precompiled).value());
}

bool HasString(const Json& node, const char* name) { return node.contains(name) && node[name].is_string(); }
bool HasBool(const Json& node, const char* name) { return node.contains(name) && node[name].is_boolean(); }

// The kind Hugging Face reads a normalizer object as (tokenizers/src/normalizers/mod.rs): its "type" when that is
// one of the names it dispatches on ("Bert" is its name for BertNormalizer); else (no "type", as in older files, or
// "BertNormalizer", which it reads the same way) the first kind of its untagged fallback whose fields are all
// there, in its order: BertNormalizer {clean_text, handle_chinese_chars, lowercase; strip_accents optional}, Strip
// {strip_left, strip_right}, Sequence {normalizers}, Replace {pattern, content}, Prepend {prepend} (the other kinds
// need their "type"). Else the "type" as it is (its reader or the message), empty without one.
std::string HfNormalizerKind(const Json& node) {
  const std::string type = HasString(node, "type") ? node["type"].get<std::string>() : "";
  if (type == "Bert") return "BertNormalizer";
  for (const char* known : {"Strip", "StripAccents", "NFC", "NFD", "NFKC", "NFKD", "Sequence", "Lowercase", "Nmt",
                            "Precompiled", "Replace", "Prepend", "ByteLevel"}) {
    if (type == known) return type;
  }
  if (HasBool(node, "clean_text") && HasBool(node, "handle_chinese_chars") && HasBool(node, "lowercase") &&
      (!node.contains("strip_accents") || node["strip_accents"].is_null() || node["strip_accents"].is_boolean())) {
    return "BertNormalizer";
  }
  if (HasBool(node, "strip_left") && HasBool(node, "strip_right")) return "Strip";
  if (node.contains("normalizers") && node["normalizers"].is_array()) return "Sequence";
  if (node.contains("pattern") && node["pattern"].is_object() && node["pattern"].size() == 1 &&
      (HasString(node["pattern"], "String") || HasString(node["pattern"], "Regex")) && HasString(node, "content")) {
    return "Replace";
  }
  if (HasString(node, "prepend")) return "Prepend";
  return type;
}

// Appends normalizer step names for an HF normalizer object; a Prepend, Replace or Strip ends the named steps
// so far (flushed into `parts`) and is added to `parts` itself.
absl::Status ReadNormalizer(const Json& node, const std::string& path, const std::string& key,
                            std::vector<std::string>* steps, std::vector<std::unique_ptr<Normalizer>>* parts) {
  if (node.is_null()) return absl::OkStatus();
  const std::string type = node.is_object() ? HfNormalizerKind(node) : "";
  if (type.empty()) {
    return HfKeyError(path, key,
                      "expected null or an object with a \"type\" (or, without one, the fields of BertNormalizer, "
                      "Strip, Sequence, Replace or Prepend)");
  }
  if (IsEditNormalizer(type)) {
    TOKVEC_RETURN_IF_ERROR(FlushNormalizerSteps(steps, parts));
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> part, ReadEditNormalizer(node, type, path, key));
    parts->push_back(std::move(part));
  } else if (type == "Precompiled") {
    TOKVEC_RETURN_IF_ERROR(FlushNormalizerSteps(steps, parts));
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> part, ReadPrecompiled(node, path, key));
    parts->push_back(std::move(part));
  } else if (type == "NFC") {
    steps->push_back("nfc");
  } else if (type == "NFKC") {
    steps->push_back("nfkc");
  } else if (type == "NFD") {
    steps->push_back("nfd");
  } else if (type == "NFKD") {
    steps->push_back("nfkd");
  } else if (type == "Lowercase") {
    steps->push_back("lowercase");
  } else if (type == "StripAccents") {
    steps->push_back("strip_accents");
  } else if (type == "BertNormalizer") {
    // Hugging Face's order: clean, Chinese characters, strip accents (NFD, then drop marks), lowercase.
    auto flag = [&](const char* name, bool fallback) { return HfBoolField(node, name, fallback, path, key); };
    TOKVEC_ASSIGN_OR_RETURN(const bool clean_text, flag("clean_text", true));
    TOKVEC_ASSIGN_OR_RETURN(const bool chinese, flag("handle_chinese_chars", true));
    TOKVEC_ASSIGN_OR_RETURN(const bool lowercase, flag("lowercase", true));
    TOKVEC_ASSIGN_OR_RETURN(const bool strip_accents, flag("strip_accents", lowercase));
    if (clean_text) steps->push_back("bert_clean");
    if (chinese) steps->push_back("bert_chinese");
    if (strip_accents) {
      steps->push_back("nfd");
      steps->push_back("bert_strip_accents");
    }
    if (lowercase) steps->push_back("lowercase");
  } else if (type == "Sequence" && node.contains("normalizers") && node["normalizers"].is_array()) {
    for (size_t i = 0; i < node["normalizers"].size(); ++i) {
      TOKVEC_RETURN_IF_ERROR(
          ReadNormalizer(node["normalizers"][i], path, fmt::format("{}.normalizers[{}]", key, i), steps, parts));
    }
  } else {
    return HfKeyError(path, key + ".type",
                    fmt::format("normalizer '{}' is not supported (supported: NFC, NFKC, NFD, NFKD, Lowercase, StripAccents, "
                                "BertNormalizer, Prepend, Replace, Strip, Precompiled, Sequence)", type));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Normalizer>> ReadHfNormalizer(const Json* node, const std::string& path,
                                                             const std::vector<std::string>& extra_steps) {
  std::vector<std::string> steps;
  std::vector<std::unique_ptr<Normalizer>> parts;
  if (node != nullptr) TOKVEC_RETURN_IF_ERROR(ReadNormalizer(*node, path, "normalizer", &steps, &parts));
  steps.insert(steps.end(), extra_steps.begin(), extra_steps.end());
  TOKVEC_RETURN_IF_ERROR(FlushNormalizerSteps(&steps, &parts));
  return MakeNormalizerChain(std::move(parts));
}

}  // namespace tokvec
