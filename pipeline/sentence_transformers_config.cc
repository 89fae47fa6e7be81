#include "pipeline/sentence_transformers_config.h"

#include <filesystem>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

// The JSON object in DIR/NAME, or std::nullopt when the file does not exist.
absl::StatusOr<std::optional<nlohmann::json>> ReadObject(const std::string& dir, const char* name,
                                                         std::string* path) {
  *path = (std::filesystem::path(dir) / name).string();
  if (!std::filesystem::exists(*path)) return std::nullopt;
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(*path));
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(fmt::format("'{}' is not a JSON object", *path));
  }
  return json;
}

std::string PromptNames(const SentenceTransformersConfig& config) {
  std::string names;
  for (const auto& [name, text] : config.prompts) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "none" : names;
}

}  // namespace

absl::StatusOr<SentenceTransformersConfig> LoadSentenceTransformersConfig(const std::string& dir) {
  SentenceTransformersConfig config;
  std::string path;
  TOKVEC_ASSIGN_OR_RETURN(std::optional<nlohmann::json> st,
                          ReadObject(dir, "config_sentence_transformers.json", &path));
  if (st) {
    const auto prompts = st->find("prompts");
    if (prompts != st->end() && !prompts->is_null()) {
      if (!prompts->is_object()) {
        return absl::InvalidArgumentError(fmt::format("'{}': key 'prompts' must be an object of strings", path));
      }
      for (const auto& [name, text] : prompts->items()) {
        if (!text.is_string()) {
          return absl::InvalidArgumentError(fmt::format("'{}': prompt '{}' must be a string", path, name));
        }
        config.prompts[name] = text.get<std::string>();
      }
    }
    const auto name = st->find("default_prompt_name");
    if (name != st->end() && !name->is_null()) {
      if (!name->is_string()) {
        return absl::InvalidArgumentError(
            fmt::format("'{}': key 'default_prompt_name' must be a string or null", path));
      }
      config.default_prompt_name = name->get<std::string>();
      if (!config.prompts.contains(config.default_prompt_name)) {
        return absl::InvalidArgumentError(fmt::format("'{}': default_prompt_name '{}' is not one of the prompts ({})",
                                                      path, config.default_prompt_name, PromptNames(config)));
      }
    }
  }
  TOKVEC_ASSIGN_OR_RETURN(std::optional<nlohmann::json> bert, ReadObject(dir, "sentence_bert_config.json", &path));
  if (bert) {
    const auto length = bert->find("max_seq_length");
    if (length != bert->end() && !length->is_null()) {
      if (!length->is_number_integer() || length->get<int64_t>() < 1) {
        return absl::InvalidArgumentError(
            fmt::format("'{}': key 'max_seq_length' must be a positive integer, not {}", path, length->dump()));
      }
      config.max_seq_length = length->get<int64_t>();
    }
  }
  return config;
}

absl::StatusOr<std::string> ChoosePrompt(const SentenceTransformersConfig& config,
                                         const std::optional<std::string>& prompt, const std::string& prompt_name,
                                         bool use_default) {
  if (prompt) return *prompt;
  const std::string& name = !prompt_name.empty() ? prompt_name : use_default ? config.default_prompt_name : prompt_name;
  if (name.empty()) return std::string();
  const auto it = config.prompts.find(name);
  if (it == config.prompts.end()) {
    if (config.prompts.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "unknown prompt name '{}': the model has no prompts (config_sentence_transformers.json)", name));
    }
    return absl::InvalidArgumentError(fmt::format(
        "unknown prompt name '{}'; the model's config_sentence_transformers.json has: {}", name, PromptNames(config)));
  }
  return it->second;
}

}  // namespace tokvec
