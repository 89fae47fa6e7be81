#include "tokenizer/processors/length_json.h"

#include <cstdint>
#include <limits>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

// node[name] as a non-negative integer no larger than `largest`; required.
absl::StatusOr<uint64_t> Count(const Json& node, const char* name, const std::string& path, const std::string& key,
                               uint64_t largest = std::numeric_limits<uint32_t>::max()) {
  const std::string at = fmt::format("{}.{}", key, name);
  if (!node.contains(name)) return HfKeyError(path, at, "missing");
  if (!node[name].is_number_unsigned() || node[name].get<uint64_t>() > largest) {
    return HfKeyError(path, at, fmt::format("expected an integer from 0 to {}", largest));
  }
  return node[name].get<uint64_t>();
}

// node[name] as one of two spellings: false for `first`, true for `second`; absent gives `fallback` when set.
absl::StatusOr<bool> Choice(const Json& node, const char* name, const char* first, const char* second,
                            std::optional<bool> fallback, const std::string& path, const std::string& key) {
  const std::string at = fmt::format("{}.{}", key, name);
  if (!node.contains(name) && fallback) return *fallback;
  if (node.contains(name) && node[name].is_string()) {
    if (node[name] == first) return false;
    if (node[name] == second) return true;
  }
  return HfKeyError(path, at, fmt::format("expected \"{}\" or \"{}\"{}", first, second,
                                          node.contains(name) ? fmt::format(", got {}", node[name].dump()) : ""));
}

}  // namespace

absl::StatusOr<std::optional<TruncationParams>> ReadHfTruncation(const Json& file, const std::string& path) {
  if (!file.contains("truncation") || file["truncation"].is_null()) return std::nullopt;
  const Json& node = file["truncation"];
  if (!node.is_object()) return HfKeyError(path, "truncation", "expected an object or null");
  TruncationParams params;
  TOKVEC_ASSIGN_OR_RETURN(const bool left, Choice(node, "direction", "Right", "Left", false, path, "truncation"));
  params.direction = left ? TruncationSide::kLeft : TruncationSide::kRight;
  TOKVEC_ASSIGN_OR_RETURN(params.max_length, Count(node, "max_length", path, "truncation"));
  TOKVEC_ASSIGN_OR_RETURN(params.stride, Count(node, "stride", path, "truncation"));
  if (!node.contains("strategy")) return HfKeyError(path, "truncation.strategy", "missing");
  const Json& strategy = node["strategy"];
  if (strategy == "LongestFirst") {
    params.strategy = TruncationStrategy::kLongestFirst;
  } else if (strategy == "OnlyFirst") {
    params.strategy = TruncationStrategy::kOnlyFirst;
  } else if (strategy == "OnlySecond") {
    params.strategy = TruncationStrategy::kOnlySecond;
  } else {
    return HfKeyError(path, "truncation.strategy",
                      fmt::format("expected \"LongestFirst\", \"OnlyFirst\" or \"OnlySecond\", got {}", strategy.dump()));
  }
  return params;
}

absl::StatusOr<std::optional<PaddingParams>> ReadHfPadding(const Json& file, const std::string& path) {
  if (!file.contains("padding") || file["padding"].is_null()) return std::nullopt;
  const Json& node = file["padding"];
  if (!node.is_object()) return HfKeyError(path, "padding", "expected an object or null");
  PaddingParams params;
  if (!node.contains("strategy")) return HfKeyError(path, "padding.strategy", "missing");
  const Json& strategy = node["strategy"];
  if (strategy.is_object() && strategy.size() == 1 && strategy.contains("Fixed")) {
    TOKVEC_ASSIGN_OR_RETURN(params.fixed_length, Count(strategy, "Fixed", path, "padding.strategy"));
  } else if (strategy != "BatchLongest") {
    return HfKeyError(path, "padding.strategy",
                      fmt::format("expected \"BatchLongest\" or {{\"Fixed\": N}}, got {}", strategy.dump()));
  }
  TOKVEC_ASSIGN_OR_RETURN(const bool left, Choice(node, "direction", "Right", "Left", std::nullopt, path, "padding"));
  params.direction = left ? PaddingSide::kLeft : PaddingSide::kRight;
  if (node.contains("pad_to_multiple_of") && !node["pad_to_multiple_of"].is_null()) {
    TOKVEC_ASSIGN_OR_RETURN(params.pad_to_multiple_of, Count(node, "pad_to_multiple_of", path, "padding"));
  }
  TOKVEC_ASSIGN_OR_RETURN(params.pad_id, Count(node, "pad_id", path, "padding"));
  TOKVEC_ASSIGN_OR_RETURN(params.pad_type_id, Count(node, "pad_type_id", path, "padding"));
  TOKVEC_ASSIGN_OR_RETURN(params.pad_token, HfStringField(node, "pad_token", path, "padding"));
  return params;
}

nlohmann::ordered_json WriteHfTruncation(const std::optional<TruncationParams>& truncation) {
  if (!truncation) return nullptr;
  return {{"direction", TruncationSideName(truncation->direction)},
          {"max_length", truncation->max_length},
          {"strategy", TruncationStrategyName(truncation->strategy)},
          {"stride", truncation->stride}};
}

nlohmann::ordered_json WriteHfPadding(const std::optional<PaddingParams>& padding) {
  if (!padding) return nullptr;
  nlohmann::ordered_json strategy = "BatchLongest";
  if (padding->fixed_length) strategy = {{"Fixed", *padding->fixed_length}};
  return {{"strategy", strategy},
          {"direction", padding->direction == PaddingSide::kLeft ? "Left" : "Right"},
          {"pad_to_multiple_of", padding->pad_to_multiple_of ? nlohmann::ordered_json(*padding->pad_to_multiple_of)
                                                             : nlohmann::ordered_json(nullptr)},
          {"pad_id", padding->pad_id},
          {"pad_type_id", padding->pad_type_id},
          {"pad_token", padding->pad_token}};
}

}  // namespace tokvec
