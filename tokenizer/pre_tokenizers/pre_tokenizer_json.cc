#include "tokenizer/pre_tokenizers/pre_tokenizer_json.h"

#include <array>
#include <cctype>
#include <optional>
#include <utility>

#include "base/json_fields.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/char_class_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/metaspace_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/metaspace_sequence_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/preset_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/split_behavior.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/unicode_scripts_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whole_text_pre_tokenizer.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kSupported =
    "ByteLevel, Split, Digits, Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit, UnicodeScripts, "
    "BertPreTokenizer, Sequence";

absl::Status KeyError(const std::string& path, const std::string& key, const std::string& what) {
  return absl::InvalidArgumentError(fmt::format("{}: key '{}': {}", path, key, what));
}

// One step of the flattened Sequence and its key for messages.
struct StepNode {
  const Json* node;
  std::string key;
};

absl::Status Flatten(const Json& node, const std::string& path, const std::string& key, std::vector<StepNode>* out) {
  if (!node.is_object() || !node.contains("type") || !node["type"].is_string()) {
    return KeyError(path, key, fmt::format("expected a pre-tokenizer object with a \"type\" ({})", kSupported));
  }
  if (node["type"] != "Sequence") {
    out->push_back({&node, key});
    return absl::OkStatus();
  }
  if (!node.contains("pretokenizers") || !node["pretokenizers"].is_array()) {
    return KeyError(path, key + ".pretokenizers", "expected an array of pre-tokenizers");
  }
  for (size_t i = 0; i < node["pretokenizers"].size(); ++i) {
    TOKVEC_RETURN_IF_ERROR(Flatten(node["pretokenizers"][i], path, fmt::format("{}.pretokenizers[{}]", key, i), out));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Flag(const Json& node, const std::string& path, const std::string& key, const char* name,
                          bool fallback) {
  if (!node.contains(name) || node[name].is_null()) return fallback;
  if (!node[name].is_boolean()) return KeyError(path, fmt::format("{}.{}", key, name), "expected true or false");
  return node[name].get<bool>();
}

absl::StatusOr<SplitBehavior> Behavior(const Json& node, const std::string& path, const std::string& key,
                                       std::optional<SplitBehavior> fallback) {
  if ((!node.contains("behavior") || node["behavior"].is_null()) && fallback) return *fallback;
  std::optional<SplitBehavior> behavior;
  if (node.contains("behavior") && node["behavior"].is_string()) {
    behavior = ParseSplitBehavior(node["behavior"].get<std::string>());
  }
  if (!behavior) {
    return KeyError(path, key + ".behavior",
                    fmt::format("expected one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous, "
                                "got {}",
                                node.contains("behavior") ? node["behavior"].dump() : "nothing"));
  }
  return *behavior;
}

// An ICU regex matching `literal` exactly: ASCII characters other than letters and digits are escaped.
std::string EscapeRegex(std::string_view literal) {
  std::string regex;
  for (char c : literal) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x80 && !std::isalnum(byte) && byte >= 0x20) regex += '\\';
    regex += c;
  }
  return regex;
}

// The Split step: {pattern: {Regex | String}, behavior, invert}.
absl::StatusOr<std::unique_ptr<PreTokenizer>> ReadSplit(const Json& node, const std::string& path,
                                                        const std::string& key) {
  const Json* pattern = node.contains("pattern") && node["pattern"].is_object() ? &node["pattern"] : nullptr;
  std::string regex;
  if (pattern != nullptr && pattern->contains("Regex") && (*pattern)["Regex"].is_string()) {
    regex = (*pattern)["Regex"].get<std::string>();
  } else if (pattern != nullptr && pattern->contains("String") && (*pattern)["String"].is_string()) {
    regex = EscapeRegex((*pattern)["String"].get<std::string>());
  } else {
    return KeyError(path, key + ".pattern", "expected {\"Regex\": \"...\"} or {\"String\": \"...\"}");
  }
  TOKVEC_ASSIGN_OR_RETURN(const SplitBehavior behavior, Behavior(node, path, key, std::nullopt));
  TOKVEC_ASSIGN_OR_RETURN(const bool invert, Flag(node, path, key, "invert", false));
  absl::StatusOr<std::unique_ptr<PreTokenizer>> split;
  if (behavior == SplitBehavior::kIsolated && !invert) {
    const std::string preset = PresetOfRegex(regex);
    split = MakeSplitPreTokenizer(preset.empty() ? regex : preset);  // A preset runs its fast splitter.
  } else {
    split = MakeBehaviorSplitPreTokenizer(regex, behavior, invert);
  }
  if (!split.ok()) return KeyError(path, key + ".pattern", std::string(split.status().message()));
  return split;
}

// Appends the steps of one (non-Sequence) pre-tokenizer. `first` is true for the first step of the file.
absl::Status ReadStep(const StepNode& step, const std::string& path, bool first, std::vector<HfPreTokenizer::Step>* steps,
                      bool* add_prefix_space) {
  const Json& node = *step.node;
  const std::string& key = step.key;
  const std::string type = node["type"].get<std::string>();
  auto add = [&](std::unique_ptr<PreTokenizer> splitter) { steps->push_back({std::move(splitter), false}); };
  if (type == "ByteLevel") {
    TOKVEC_ASSIGN_OR_RETURN(const bool use_regex, Flag(node, path, key, "use_regex", true));
    TOKVEC_ASSIGN_OR_RETURN(const bool prefix, Flag(node, path, key, "add_prefix_space", false));
    TOKVEC_RETURN_IF_ERROR(Flag(node, path, key, "trim_offsets", true).status());
    if (prefix && !first) {
      return KeyError(path, key + ".add_prefix_space",
                      "true on a ByteLevel after other pre-tokenizers (a space before every piece) is not supported");
    }
    *add_prefix_space = prefix;
    steps->push_back({use_regex ? MakePresetSplitter("gpt2") : nullptr, true});
  } else if (type == "Split") {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<PreTokenizer> split, ReadSplit(node, path, key));
    add(std::move(split));
  } else if (type == "Digits") {
    TOKVEC_ASSIGN_OR_RETURN(const bool individual, Flag(node, path, key, "individual_digits", false));
    add(MakeDigitsSplitter(individual));
  } else if (type == "Punctuation") {
    TOKVEC_ASSIGN_OR_RETURN(const SplitBehavior behavior, Behavior(node, path, key, SplitBehavior::kIsolated));
    add(MakePunctuationSplitter(behavior));
  } else if (type == "Whitespace") {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<PreTokenizer> words,
                            MakeBehaviorSplitPreTokenizer(R"(\w+|[^\w\s]+)", SplitBehavior::kRemoved, true));
    add(std::move(words));
  } else if (type == "WhitespaceSplit") {
    add(MakeWhitespaceSplitSplitter());
  } else if (type == "CharDelimiterSplit") {
    const Json* delimiter = node.contains("delimiter") ? &node["delimiter"] : nullptr;
    std::string text = delimiter != nullptr && delimiter->is_string() ? delimiter->get<std::string>() : "";
    size_t length = text.empty() ? 0 : Utf8SequenceLength(text, 0);
    if (length == 0 || length != text.size()) {
      return KeyError(path, key + ".delimiter", "expected a string of one character");
    }
    add(MakeCharDelimiterSplitter(DecodeWellFormedUtf8(text, 0, &length)));
  } else if (type == "UnicodeScripts") {
    add(std::make_unique<UnicodeScriptsPreTokenizer>());
  } else if (type == "BertPreTokenizer") {  // Hugging Face: white space (removed), then punctuation (isolated).
    add(MakeWhitespaceSplitSplitter());
    add(MakePunctuationSplitter(SplitBehavior::kIsolated));
  } else {
    return KeyError(path, key + ".type",
                    fmt::format("pre-tokenizer '{}' is not supported for byte-level BPE (supported: {})", type,
                                kSupported));
  }
  return absl::OkStatus();
}

// Sets add_prefix_space of the first step (a ByteLevel) of `node`; false when the first step is no ByteLevel.
bool SetFirstPrefix(Json& node, bool value) {
  if (!node.is_object()) return false;
  if (OptionalString(node, "type") == "Sequence") {
    return node.contains("pretokenizers") && node["pretokenizers"].is_array() && !node["pretokenizers"].empty() &&
           SetFirstPrefix(node["pretokenizers"][0], value);
  }
  if (OptionalString(node, "type") != "ByteLevel") return false;
  node["add_prefix_space"] = value;
  return true;
}

// GPT-2's alphabet spelling of each byte (UTF-8, 1 or 2 bytes).
const std::array<std::string, 256>& ByteSpellings() {
  static const std::array<std::string, 256> spellings = [] {
    std::array<std::string, 256> table;
    for (int b = 0; b < 256; ++b) table[b] = BytesToUnicode(std::string(1, static_cast<char>(b)));
    return table;
  }();
  return spellings;
}

// A Metaspace pre-tokenizer object at `key` (see metaspace_pre_tokenizer.h).
absl::StatusOr<MetaspacePreTokenizer::Options> ReadMetaspace(const Json& node, const std::string& path,
                                                             const std::string& key) {
  MetaspacePreTokenizer::Options options;
  if (node.contains("replacement")) {
    const Json& replacement = node["replacement"];
    if (!replacement.is_string() || replacement.get<std::string>().empty() ||
        Utf8SequenceLength(replacement.get<std::string>(), 0) != replacement.get<std::string>().size()) {
      return KeyError(path, key + ".replacement", "expected a string of one character");
    }
    options.replacement = replacement.get<std::string>();
  }
  if (node.contains("split") && !node["split"].is_null()) {
    if (!node["split"].is_boolean()) return KeyError(path, key + ".split", "expected true or false");
    options.split = node["split"].get<bool>();
  }
  // prepend_scheme, "always" by default; the legacy add_prefix_space true changes nothing, false needs "never".
  const bool no_prefix = node.contains("add_prefix_space") && node["add_prefix_space"].is_boolean() &&
                         !node["add_prefix_space"].get<bool>();
  if (node.contains("prepend_scheme") && !node["prepend_scheme"].is_null()) {
    const std::string scheme = node["prepend_scheme"].is_string() ? node["prepend_scheme"].get<std::string>() : "";
    if (scheme == "always") {
      options.prepend = MetaspacePreTokenizer::Prepend::kAlways;
    } else if (scheme == "first") {
      options.prepend = MetaspacePreTokenizer::Prepend::kFirst;
    } else if (scheme == "never") {
      options.prepend = MetaspacePreTokenizer::Prepend::kNever;
    } else {
      return KeyError(path, key + ".prepend_scheme", "expected \"always\", \"first\" or \"never\"");
    }
  }
  // Hugging Face refuses add_prefix_space false unless prepend_scheme is "never" (its default is "always").
  if (no_prefix && options.prepend != MetaspacePreTokenizer::Prepend::kNever) {
    return KeyError(path, key + ".add_prefix_space",
                    "false does not match prepend_scheme (\"always\" unless given); use prepend_scheme \"never\"");
  }
  return options;
}

}  // namespace

std::string PresetOfRegex(std::string_view regex) {
  for (const char* preset : {"gpt2", "cl100k", "o200k"}) {
    if (SplitPresetRegex(preset) == regex) return preset;
  }
  return "";
}

absl::Status HfPreTokenizer::Split(std::string_view text, std::vector<Piece>* pieces) const {
  thread_local std::vector<Piece> current;
  thread_local std::vector<Piece> next;
  thread_local std::vector<Piece> sub;
  thread_local std::string mapped;
  thread_local std::vector<size_t> original_at;  // [mapped.size() + 1]: the text byte of each mapped byte.
  thread_local std::vector<size_t> mapped_at;    // [text.size() + 1]: where each text byte starts in `mapped`.
  current.assign(1, Piece{0, text.size()});
  std::string_view work = text;
  bool is_mapped = false;
  auto resplit = [&](const PreTokenizer& splitter) -> absl::Status {
    next.clear();
    for (const Piece& piece : current) {
      sub.clear();
      TOKVEC_RETURN_IF_ERROR(splitter.Split(work.substr(piece.begin, piece.end - piece.begin), &sub));
      for (const Piece& s : sub) next.push_back({piece.begin + s.begin, piece.begin + s.end});
    }
    current.swap(next);
    return absl::OkStatus();
  };
  for (const Step& step : steps_) {
    if (step.splitter != nullptr) TOKVEC_RETURN_IF_ERROR(resplit(*step.splitter));
    if (!step.byte_level) continue;
    // The ByteLevel: every byte becomes one code point of GPT-2's alphabet.
    const std::array<std::string, 256>& spellings = ByteSpellings();
    mapped.clear();
    original_at.clear();
    mapped_at.resize(text.size() + 1);
    for (size_t i = 0; i < text.size(); ++i) {
      mapped_at[i] = mapped.size();
      const std::string& spelling = spellings[static_cast<unsigned char>(text[i])];
      mapped += spelling;
      original_at.insert(original_at.end(), spelling.size(), i);
    }
    mapped_at[text.size()] = mapped.size();
    original_at.push_back(text.size());
    for (Piece& piece : current) piece = {mapped_at[piece.begin], mapped_at[piece.end]};
    work = mapped;
    is_mapped = true;
  }
  for (const Piece& piece : current) {
    pieces->push_back(is_mapped ? Piece{original_at[piece.begin], original_at[piece.end]} : piece);
  }
  return absl::OkStatus();
}

absl::StatusOr<HfPreTokenizerChoice> ReadHfByteLevelPreTokenizer(const Json& node, const std::string& path) {
  const std::string key = "pre_tokenizer";
  std::vector<StepNode> nodes;
  TOKVEC_RETURN_IF_ERROR(Flatten(node, path, key, &nodes));
  size_t byte_levels = 0;
  for (const StepNode& step : nodes) byte_levels += (*step.node)["type"] == "ByteLevel" ? 1 : 0;
  if (byte_levels != 1) {
    return KeyError(path, key,
                    fmt::format("a byte-level BPE pre-tokenizer needs exactly one ByteLevel (in a Sequence), found {}",
                                byte_levels));
  }
  HfPreTokenizerChoice choice;
  std::vector<HfPreTokenizer::Step> steps;
  for (size_t i = 0; i < nodes.size(); ++i) {
    TOKVEC_RETURN_IF_ERROR(ReadStep(nodes[i], path, i == 0, &steps, &choice.add_prefix_space));
  }
  // The fast shapes (see the header): ByteLevel with its regex alone, or a Split before ByteLevel without one.
  if (steps.size() == 1 && steps[0].splitter != nullptr) {
    choice.pre_tokenizer = std::move(steps[0].splitter);
    return choice;
  }
  auto isolated_split = [&](const StepNode& step) {
    if ((*step.node)["type"] != "Split") return false;
    absl::StatusOr<SplitBehavior> behavior = Behavior(*step.node, path, step.key, std::nullopt);
    absl::StatusOr<bool> invert = Flag(*step.node, path, step.key, "invert", false);
    return behavior.ok() && *behavior == SplitBehavior::kIsolated && invert.ok() && !*invert;
  };
  if (steps.size() == 2 && steps[1].byte_level && steps[1].splitter == nullptr && isolated_split(nodes[0])) {
    choice.pre_tokenizer = std::move(steps[0].splitter);
    return choice;
  }
  Json stored = node;
  if (choice.add_prefix_space) SetFirstPrefix(stored, false);
  choice.pre_tokenizer = std::make_unique<HfPreTokenizer>(std::move(steps), stored.dump());
  return choice;
}

absl::StatusOr<std::string> HfPreTokenizerJson(const HfPreTokenizer& pre_tokenizer, bool add_prefix_space) {
  Json node = Json::parse(pre_tokenizer.json(), nullptr, /*allow_exceptions=*/false);
  if (node.is_discarded()) return absl::InternalError("stored pre_tokenizer JSON does not parse");
  if (add_prefix_space && !SetFirstPrefix(node, true)) {
    return absl::FailedPreconditionError(
        "prefix_space with a pre-tokenizer that does not start with a ByteLevel has no tokenizer.json form");
  }
  return node.dump();
}

absl::StatusOr<std::string> HfPreTokenizer::ByteLevelJson(bool add_prefix_space) const {
  return HfPreTokenizerJson(*this, add_prefix_space);
}

absl::StatusOr<std::string> PreTokenizer::ByteLevelJson(bool add_prefix_space) const {
  const std::optional<std::string> pattern = SplitPattern();
  if (!pattern) {
    return absl::FailedPreconditionError(
        fmt::format("the pre-tokenizer '{}' has no byte-level tokenizer.json form", name()));
  }
  auto byte_level = [](bool prefix_space, bool use_regex) {
    return OrderedJson{{"type", "ByteLevel"},
                       {"add_prefix_space", prefix_space},
                       {"trim_offsets", true},
                       {"use_regex", use_regex}};
  };
  if (*pattern == "gpt2") return byte_level(add_prefix_space, true).dump();
  if (add_prefix_space) {
    return absl::FailedPreconditionError("prefix_space with a split pattern other than gpt2 has no tokenizer.json form");
  }
  const std::optional<std::string> preset = SplitPresetRegex(*pattern);
  const OrderedJson split = {{"type", "Split"},
                             {"pattern", {{"Regex", preset ? *preset : *pattern}}},
                             {"behavior", "Isolated"},
                             {"invert", false}};
  return OrderedJson{{"type", "Sequence"}, {"pretokenizers", {split, byte_level(false, false)}}}.dump();
}

absl::StatusOr<std::vector<HfPreTokenizerNode>> FlattenHfPreTokenizer(const Json& node, const std::string& path,
                                                                      const std::string& key) {
  std::vector<StepNode> nodes;
  TOKVEC_RETURN_IF_ERROR(Flatten(node, path, key, &nodes));
  std::vector<HfPreTokenizerNode> out;
  for (StepNode& step : nodes) out.push_back({step.node, std::move(step.key)});
  return out;
}

absl::StatusOr<std::unique_ptr<HfPreTokenizer>> ReadHfSplitSteps(const std::vector<HfPreTokenizerNode>& nodes,
                                                                 const std::string& path) {
  std::vector<HfPreTokenizer::Step> steps;
  Json stored = Json::array();
  bool unused_prefix = false;
  for (const HfPreTokenizerNode& node : nodes) {
    if ((*node.node)["type"] == "ByteLevel") {
      return KeyError(path, node.key, "a ByteLevel here (not in the top Sequence) is not supported");
    }
    TOKVEC_RETURN_IF_ERROR(ReadStep({node.node, node.key}, path, /*first=*/false, &steps, &unused_prefix));
    stored.push_back(*node.node);
  }
  return std::make_unique<HfPreTokenizer>(std::move(steps), stored.dump());
}

bool HfPreTokenizerIsByteLevel(const Json* node) {
  if (node == nullptr) return false;
  const Json& pre = *node;
  if (!pre.is_object()) return !pre.is_null();  // Not an object: ReadHfByteLevelPreTokenizer names the problem.
  if (OptionalString(pre, "type") == "ByteLevel") return true;
  if (OptionalString(pre, "type") != "Sequence" || !pre.contains("pretokenizers") || !pre["pretokenizers"].is_array()) {
    return OptionalString(pre, "type") == "Sequence";
  }
  for (const Json& item : pre["pretokenizers"]) {
    if (item.is_object() && OptionalString(item, "type") == "ByteLevel") return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> ReadHfCodePointPreTokenizer(const Json* node, const std::string& path,
                                                                         const std::string& model,
                                                                         HfCodePointShapes fast) {
  if (node == nullptr || node->is_null()) return std::make_unique<WholeTextPreTokenizer>();
  const std::string type = OptionalString(*node, "type");
  if (fast.bert && type == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  if (fast.whitespace_split && type == "WhitespaceSplit") return std::make_unique<WhitespacePreTokenizer>();
  if (fast.whitespace_metaspace && type == "Sequence" && node->contains("pretokenizers") &&
      (*node)["pretokenizers"].is_array() && (*node)["pretokenizers"].size() == 2 &&
      (*node)["pretokenizers"][0].is_object() &&
      OptionalString((*node)["pretokenizers"][0], "type") == "WhitespaceSplit" &&
      (*node)["pretokenizers"][1].is_object() && OptionalString((*node)["pretokenizers"][1], "type") == "Metaspace") {
    TOKVEC_ASSIGN_OR_RETURN(MetaspacePreTokenizer::Options options,
                            ReadMetaspace((*node)["pretokenizers"][1], path, "pre_tokenizer.pretokenizers[1]"));
    options.whitespace_split = true;
    return std::make_unique<MetaspacePreTokenizer>(std::move(options));
  }
  if (type == "Metaspace") {
    TOKVEC_ASSIGN_OR_RETURN(MetaspacePreTokenizer::Options options, ReadMetaspace(*node, path, "pre_tokenizer"));
    return std::make_unique<MetaspacePreTokenizer>(std::move(options));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::vector<HfPreTokenizerNode> nodes, FlattenHfPreTokenizer(*node, path, "pre_tokenizer"));
  std::optional<size_t> metaspace;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string step = (*nodes[i].node)["type"].get<std::string>();
    if (step == "Metaspace" && metaspace) {
      return KeyError(path, nodes[i].key, "a second Metaspace is not supported");
    }
    if (step == "Metaspace") metaspace = i;
    if (step != "Metaspace" && step != "Split" && step != "Digits" && step != "Punctuation" && step != "Whitespace" &&
        step != "WhitespaceSplit" && step != "CharDelimiterSplit" && step != "UnicodeScripts" &&
        step != "BertPreTokenizer") {
      return KeyError(path, nodes[i].key + ".type",
                      fmt::format("pre-tokenizer '{}' is not supported with {} (supported: null, Metaspace, Split, "
                                  "Digits, Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit, "
                                  "UnicodeScripts, BertPreTokenizer, Sequence{})",
                                  step, model == "BPE" ? "a BPE model over code points" : model,
                                  model == "BPE" ? "; ByteLevel in the top Sequence makes a byte-level model" : ""));
    }
  }
  if (!metaspace) return ReadHfSplitSteps(nodes, path);
  TOKVEC_ASSIGN_OR_RETURN(MetaspacePreTokenizer::Options options,
                          ReadMetaspace(*nodes[*metaspace].node, path, nodes[*metaspace].key));
  std::unique_ptr<PreTokenizer> before;
  std::unique_ptr<PreTokenizer> after;
  const auto middle = nodes.begin() + static_cast<std::ptrdiff_t>(*metaspace);
  if (middle != nodes.begin()) {
    TOKVEC_ASSIGN_OR_RETURN(before, ReadHfSplitSteps({nodes.begin(), middle}, path));
  }
  if (middle + 1 != nodes.end()) {
    TOKVEC_ASSIGN_OR_RETURN(after, ReadHfSplitSteps({middle + 1, nodes.end()}, path));
  }
  return std::make_unique<MetaspaceSequencePreTokenizer>(std::move(options), std::move(before), std::move(after));
}

}  // namespace tokvec
