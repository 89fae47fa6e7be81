#include "tokenizer/models/bpe/bpe_json.h"

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {

absl::Status CheckHfBpeDropout(const nlohmann::json& model, const std::string& path) {
  // 0 (a number equal to 0) merges as null does: Hugging Face's BPE draws no dropout then (models/bpe/model.rs).
  if (model.contains("dropout") && !model["dropout"].is_null() &&
      !(model["dropout"].is_number() && model["dropout"].get<double>() == 0.0)) {
    return HfKeyError(path, "model.dropout",
                      fmt::format("BPE dropout ({}) is random at encode time and not supported; set it to null",
                                  model["dropout"].dump()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BpeAffixes>> ReadHfBpeAffixes(const nlohmann::json& model, const FlatMerges& merges,
                                                           const std::string& path, bool byte_level) {
  std::string spelled[2];
  const char* keys[2] = {"continuing_subword_prefix", "end_of_word_suffix"};
  for (int i = 0; i < 2; ++i) {
    if (!model.contains(keys[i]) || model[keys[i]].is_null()) continue;
    if (!model[keys[i]].is_string()) return HfKeyError(path, fmt::format("model.{}", keys[i]), "expected a string or null");
    spelled[i] = model[keys[i]].get<std::string>();
  }
  if (spelled[0].empty() && spelled[1].empty()) return std::nullopt;
  BpeAffixes affixes;
  affixes.code_points = !byte_level;
  std::string* bytes[2] = {&affixes.prefix, &affixes.suffix};
  for (int i = 0; i < 2; ++i) {
    if (!byte_level) {
      *bytes[i] = spelled[i];
    } else if (!AppendUnicodeToBytes(spelled[i], bytes[i])) {
      return HfKeyError(path, fmt::format("model.{}", keys[i]),
                        fmt::format("'{}' is not spelled in GPT-2's byte-to-unicode alphabet, as byte-level BPE tokens are",
                                    spelled[i]));
    }
  }
  for (size_t rank = 0; rank < merges.size() && !spelled[0].empty(); ++rank) {
    if (merges.right(rank).substr(0, spelled[0].size()) != spelled[0]) {
      return HfKeyError(path, fmt::format("model.merges[{}]", rank),
                        fmt::format("the right side '{}' does not begin with continuing_subword_prefix '{}'",
                                    merges.right(rank), spelled[0]));
    }
  }
  return affixes;
}

absl::StatusOr<CharBpeOptions> ReadHfBpeUnknown(
    const nlohmann::json& model, const std::string& path,
    absl::FunctionRef<std::optional<TokenId>(const std::string&)> find) {
  auto flag = [&](const char* name) -> absl::StatusOr<bool> {
    if (!model.contains(name) || model[name].is_null()) return false;
    if (!model[name].is_boolean()) return HfKeyError(path, fmt::format("model.{}", name), "expected true or false");
    return model[name].get<bool>();
  };
  CharBpeOptions options;
  TOKVEC_ASSIGN_OR_RETURN(options.fuse_unk, flag("fuse_unk"));
  TOKVEC_ASSIGN_OR_RETURN(options.byte_fallback, flag("byte_fallback"));
  if (model.contains("unk_token") && !model["unk_token"].is_null()) {
    if (!model["unk_token"].is_string()) return HfKeyError(path, "model.unk_token", "expected a string or null");
    const std::string unk = model["unk_token"].get<std::string>();
    options.unk_id = find(unk);
    if (!options.unk_id) {
      return HfKeyError(path, "model.unk_token", fmt::format("'{}' is not in the vocabulary", unk));
    }
  }
  return options;
}

}  // namespace tokvec
