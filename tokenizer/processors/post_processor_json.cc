#include "tokenizer/processors/post_processor_json.h"

#include "base/json_fields.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

absl::Status Error(const std::string& path, const std::string& key, const std::string& what) {
  return absl::InvalidArgumentError(fmt::format("{}: key '{}': {}", path, key, what));
}

absl::StatusOr<bool> Flag(const Json& node, const char* name, bool fallback, const std::string& path,
                          const std::string& key) {
  if (!node.contains(name) || node[name].is_null()) return fallback;
  if (!node[name].is_boolean()) return Error(path, fmt::format("{}.{}", key, name), "expected true or false");
  return node[name].get<bool>();
}

absl::StatusOr<TokenId> CheckedId(const Json& id, size_t vocab_size, const std::string& path, const std::string& key) {
  if (!id.is_number_unsigned() || id.get<uint64_t>() >= vocab_size) {
    return Error(path, key, fmt::format("expected a token id below the vocabulary size {}, got {}", vocab_size,
                                        id.dump()));
  }
  return static_cast<TokenId>(id.get<uint64_t>());
}

// RobertaProcessing's and BertProcessing's ["text", id].
absl::StatusOr<TokenId> PairId(const Json& node, const char* name, size_t vocab_size, const std::string& path,
                               const std::string& key) {
  const std::string where = fmt::format("{}.{}", key, name);
  if (!node.contains(name) || !node[name].is_array() || node[name].size() != 2 || !node[name][0].is_string()) {
    return Error(path, where, "expected [\"text\", id]");
  }
  return CheckedId(node[name][1], vocab_size, path, where + "[1]");
}

// A piece's "type_id": a small whole number, 0 when absent.
absl::StatusOr<uint32_t> TypeId(const Json& node, const std::string& path, const std::string& key) {
  if (!node.contains("type_id") || node["type_id"].is_null()) return 0;
  if (!node["type_id"].is_number_unsigned() || node["type_id"].get<uint64_t>() > 0xFFFFFFFFu) {
    return Error(path, key + ".type_id", fmt::format("expected a whole number, got {}", node["type_id"].dump()));
  }
  return static_cast<uint32_t>(node["type_id"].get<uint64_t>());
}

// One template ("single" or "pair"): the special tokens' ids before and after sequence A (single), or the pieces
// in order into step->pair (pair).
absl::Status ReadTemplate(const Json& node, const Json& specials, bool single, size_t vocab_size,
                          const std::string& path, const std::string& key, PostProcessor::Step* step) {
  if (!node.is_array()) return Error(path, key, "expected an array of {\"SpecialToken\"} and {\"Sequence\"}");
  bool seen_a = false;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", key, i);
    const Json& piece = node[i];
    if (piece.is_object() && piece.contains("Sequence") && piece["Sequence"].is_object()) {
      const std::string id = OptionalString(piece["Sequence"], "id");
      if (id != "A" && id != "B") return Error(path, where + ".Sequence.id", "expected \"A\" or \"B\"");
      if (single && id == "B") return Error(path, where, "a single template cannot hold sequence B");
      TOKVEC_ASSIGN_OR_RETURN(const uint32_t type_id, TypeId(piece["Sequence"], path, where + ".Sequence"));
      if (!single) {
        step->pair->push_back({.kind = id == "A" ? TemplatePiece::kSequenceA : TemplatePiece::kSequenceB,
                               .type_id = type_id});
      }
      if (id == "A") {
        if (seen_a && single) return Error(path, where, "sequence A appears twice");
        seen_a = true;
      }
      continue;
    }
    if (!piece.is_object() || !piece.contains("SpecialToken") || !piece["SpecialToken"].is_object() ||
        !piece["SpecialToken"].contains("id") || !piece["SpecialToken"]["id"].is_string()) {
      return Error(path, where, "expected {\"SpecialToken\": {\"id\": ...}} or {\"Sequence\": {\"id\": ...}}");
    }
    const std::string name = piece["SpecialToken"]["id"].get<std::string>();
    if (!specials.contains(name)) {
      return Error(path, where + ".SpecialToken.id",
                   fmt::format("'{}' is not in the post-processor's special_tokens", name));
    }
    TOKVEC_ASSIGN_OR_RETURN(const uint32_t type_id, TypeId(piece["SpecialToken"], path, where + ".SpecialToken"));
    if (!single) step->pair->push_back({.kind = TemplatePiece::kTokens, .type_id = type_id});
    const Json& ids = specials[name].contains("ids") ? specials[name]["ids"] : Json();
    if (!ids.is_array()) return Error(path, fmt::format("post_processor.special_tokens.{}.ids", name), "expected an array");
    for (size_t k = 0; k < ids.size(); ++k) {
      TOKVEC_ASSIGN_OR_RETURN(
          TokenId id, CheckedId(ids[k], vocab_size, path, fmt::format("post_processor.special_tokens.{}.ids[{}]", name, k)));
      if (single) {
        (seen_a ? step->after : step->before).push_back(id);
      } else {
        step->pair->back().ids.push_back(id);
      }
    }
  }
  if (single && !seen_a) return Error(path, key, "the single template has no sequence A ($A)");
  return absl::OkStatus();
}

// Whether node[name] is what Hugging Face's serde reads as the field's type: ["text", id] (a (String, u32)), a
// bool, a u32.
bool IsU32(const Json& value) { return value.is_number_unsigned() && value.get<uint64_t>() <= 0xFFFFFFFFu; }
bool HasTextId(const Json& node, const char* name) {
  return node.contains(name) && node[name].is_array() && node[name].size() == 2 && node[name][0].is_string() &&
         IsU32(node[name][1]);
}
bool HasBool(const Json& node, const char* name) { return node.contains(name) && node[name].is_boolean(); }

// A template as Hugging Face's serde reads it: [{"Sequence": {"id": "A" | "B", "type_id": u32}} |
// {"SpecialToken": {"id": string, "type_id": u32}}] (each piece one key; both fields required).
bool IsTemplate(const Json& pieces) {
  if (!pieces.is_array()) return false;
  for (const Json& piece : pieces) {
    if (!piece.is_object() || piece.size() != 1) return false;
    const bool sequence = piece.contains("Sequence");
    const Json& inner = sequence ? piece["Sequence"] : piece.contains("SpecialToken") ? piece["SpecialToken"] : Json();
    if (!inner.is_object() || !inner.contains("id") || !inner["id"].is_string() || !inner.contains("type_id") ||
        !IsU32(inner["type_id"])) {
      return false;
    }
    if (sequence && inner["id"] != "A" && inner["id"] != "B") return false;
  }
  return true;
}

// TemplateProcessing's special_tokens as Hugging Face's serde reads them: {name: {id, ids: [u32], tokens: [string]}}.
bool IsSpecialTokens(const Json& specials) {
  if (!specials.is_object()) return false;
  for (const auto& [name, token] : specials.items()) {
    if (!token.is_object() || !token.contains("id") || !token["id"].is_string() || !token.contains("ids") ||
        !token["ids"].is_array() || !token.contains("tokens") || !token["tokens"].is_array()) {
      return false;
    }
    for (const Json& id : token["ids"]) if (!IsU32(id)) return false;
    for (const Json& text : token["tokens"]) if (!text.is_string()) return false;
  }
  return true;
}

// The kind Hugging Face reads a post-processor object as. Its PostProcessorWrapper is untagged
// (tokenizers/src/processors/mod.rs): the kinds are tried in the order RobertaProcessing, BertProcessing,
// ByteLevel, TemplateProcessing, Sequence, and the Roberta, Bert and Template structs do not check "type", so
// their fields alone decide (older files have no "type"; a "BertProcessing" with trim_offsets and add_prefix_space
// reads as RobertaProcessing, a "RobertaProcessing" without them as BertProcessing). ByteLevel and Sequence need
// their "type". When no kind fits, the "type" (its reader then names the bad field); empty without one.
std::string HfPostProcessorKind(const Json& node) {
  const std::string type = node.contains("type") && node["type"].is_string() ? node["type"].get<std::string>() : "";
  if (HasTextId(node, "sep") && HasTextId(node, "cls")) {
    return HasBool(node, "trim_offsets") && HasBool(node, "add_prefix_space") ? "RobertaProcessing" : "BertProcessing";
  }
  if (type == "ByteLevel" && HasBool(node, "add_prefix_space") && HasBool(node, "trim_offsets") &&
      (!node.contains("use_regex") || node["use_regex"].is_boolean())) {
    return type;
  }
  if (node.contains("single") && IsTemplate(node["single"]) && node.contains("pair") && IsTemplate(node["pair"]) &&
      node.contains("special_tokens") && IsSpecialTokens(node["special_tokens"])) {
    return "TemplateProcessing";
  }
  return type;
}

absl::Status ReadStep(const Json& node, const std::string& path, const std::string& key, size_t vocab_size,
                      PostProcessor* out) {
  const std::string type = node.is_object() ? HfPostProcessorKind(node) : "";
  if (type.empty()) {
    return Error(path, key,
                 "expected null or an object with a \"type\" (or, without one, the fields of RobertaProcessing, "
                 "BertProcessing or TemplateProcessing)");
  }
  using Step = PostProcessor::Step;
  if (type == "TemplateProcessing") {
    const Json specials = node.contains("special_tokens") && node["special_tokens"].is_object()
                              ? node["special_tokens"]
                              : Json::object();
    Step step{.kind = Step::kAddTokens};
    if (!node.contains("single")) return Error(path, key + ".single", "missing");
    TOKVEC_RETURN_IF_ERROR(ReadTemplate(node["single"], specials, true, vocab_size, path, key + ".single", &step));
    if (node.contains("pair") && !node["pair"].is_null()) {
      step.pair.emplace();
      TOKVEC_RETURN_IF_ERROR(ReadTemplate(node["pair"], specials, false, vocab_size, path, key + ".pair", &step));
    }
    out->steps.push_back(std::move(step));
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    if (type == "RobertaProcessing") {
      TOKVEC_ASSIGN_OR_RETURN(const bool trim, Flag(node, "trim_offsets", true, path, key));
      TOKVEC_ASSIGN_OR_RETURN(const bool prefix, Flag(node, "add_prefix_space", true, path, key));
      if (trim) out->steps.push_back({.kind = Step::kTrimOffsets, .add_prefix_space = prefix});
    }
    TOKVEC_ASSIGN_OR_RETURN(const TokenId cls, PairId(node, "cls", vocab_size, path, key));
    TOKVEC_ASSIGN_OR_RETURN(const TokenId sep, PairId(node, "sep", vocab_size, path, key));
    // Hugging Face's pair layouts; RobertaProcessing gives every token type id 0, BertProcessing 1 to B's part.
    using Piece = TemplatePiece;
    const uint32_t b_type = type == "BertProcessing" ? 1 : 0;
    std::vector<Piece> pair = {{.kind = Piece::kTokens, .ids = {cls}}, {.kind = Piece::kSequenceA},
                               {.kind = Piece::kTokens, .ids = {sep}}};
    if (type == "RobertaProcessing") pair.push_back({.kind = Piece::kTokens, .ids = {sep}});
    pair.push_back({.kind = Piece::kSequenceB, .type_id = b_type});
    pair.push_back({.kind = Piece::kTokens, .ids = {sep}, .type_id = b_type});
    out->steps.push_back({.kind = Step::kAddTokens, .before = {cls}, .after = {sep}, .pair = std::move(pair),
                          .zero_window_type_ids = type == "RobertaProcessing"});
  } else if (type == "ByteLevel") {
    TOKVEC_ASSIGN_OR_RETURN(const bool trim, Flag(node, "trim_offsets", true, path, key));
    TOKVEC_ASSIGN_OR_RETURN(const bool prefix, Flag(node, "add_prefix_space", true, path, key));
    if (trim) out->steps.push_back({.kind = Step::kTrimOffsets, .add_prefix_space = prefix});
  } else if (type == "Sequence") {
    if (!node.contains("processors") || !node["processors"].is_array()) {
      return Error(path, key + ".processors", "expected an array");
    }
    for (size_t i = 0; i < node["processors"].size(); ++i) {
      TOKVEC_RETURN_IF_ERROR(
          ReadStep(node["processors"][i], path, fmt::format("{}.processors[{}]", key, i), vocab_size, out));
    }
  } else {
    return Error(path, key + ".type",
                 fmt::format("post-processor '{}' is not supported (supported: TemplateProcessing, "
                             "RobertaProcessing, BertProcessing, ByteLevel, Sequence)",
                             type));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PostProcessor>> ReadHfPostProcessor(const Json& node, const std::string& path,
                                                                         size_t vocab_size) {
  if (node.is_null()) return nullptr;
  auto post = std::make_shared<PostProcessor>();
  TOKVEC_RETURN_IF_ERROR(ReadStep(node, path, "post_processor", vocab_size, post.get()));
  post->name = HfPostProcessorKind(node);
  return post;
}

}  // namespace tokvec
