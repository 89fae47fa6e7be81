#include "attention/attention_kind.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

constexpr int64_t kMaxParameter = int64_t{1} << 30;
constexpr std::string_view kForms =
    "full, window:W, longformer:W,G, bigbird:B,R,G, linformer:K, performer:M or linear";

absl::Status Bad(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("attention kind '{}': {}; expected one of {}", text, why, kForms));
}

}  // namespace

absl::StatusOr<AttentionKind> ParseAttentionKind(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  std::vector<int64_t> values;
  if (colon != std::string_view::npos) {
    for (absl::string_view part : absl::StrSplit(absl::string_view(text.data() + colon + 1, text.size() - colon - 1),
                                                 ',')) {
      int64_t value = 0;
      if (!absl::SimpleAtoi(part, &value) || value < 0 || value > kMaxParameter) {
        return Bad(text, fmt::format("'{}' is not an integer in [0, 2^30]", std::string_view(part.data(), part.size())));
      }
      values.push_back(value);
    }
  }
  struct Form {
    std::string_view name;
    AttentionKindType type;
    size_t count;
  };
  static constexpr Form kKinds[] = {
      {"full", AttentionKindType::kFull, 0},           {"window", AttentionKindType::kWindow, 1},
      {"longformer", AttentionKindType::kLongformer, 2}, {"bigbird", AttentionKindType::kBigBird, 3},
      {"linformer", AttentionKindType::kLinformer, 1},   {"performer", AttentionKindType::kPerformer, 1},
      {"linear", AttentionKindType::kLinear, 0},
  };
  for (const Form& form : kKinds) {
    if (name != form.name) continue;
    if (values.size() != form.count || (form.count == 0 && colon != std::string_view::npos)) {
      return Bad(text, fmt::format("{} takes {} parameter{}", form.name, form.count, form.count == 1 ? "" : "s"));
    }
    AttentionKind kind;
    kind.type = form.type;
    switch (form.type) {
      case AttentionKindType::kFull:
      case AttentionKindType::kLinear:
        break;
      case AttentionKindType::kWindow:
        kind.window = values[0];
        break;
      case AttentionKindType::kLongformer:
        kind.window = values[0];
        kind.globals = values[1];
        break;
      case AttentionKindType::kBigBird:
        kind.block = values[0];
        kind.random_blocks = values[1];
        kind.globals = values[2];
        break;
      case AttentionKindType::kLinformer:
        kind.rank = values[0];
        break;
      case AttentionKindType::kPerformer:
        kind.features = values[0];
        break;
    }
    if ((kind.type == AttentionKindType::kWindow || kind.type == AttentionKindType::kLongformer) && kind.window < 1) {
      return Bad(text, "the window W must be at least 1");
    }
    if (kind.type == AttentionKindType::kBigBird && kind.block < 1) return Bad(text, "the block size B must be at least 1");
    if (kind.type == AttentionKindType::kLinformer && kind.rank < 1) return Bad(text, "the rank K must be at least 1");
    if (kind.type == AttentionKindType::kPerformer && kind.features < 1) {
      return Bad(text, "the feature count M must be at least 1");
    }
    return kind;
  }
  return Bad(text, "unknown kind");
}

std::string AttentionKindName(const AttentionKind& kind) {
  switch (kind.type) {
    case AttentionKindType::kFull:
      return "full";
    case AttentionKindType::kWindow:
      return fmt::format("window:{}", kind.window);
    case AttentionKindType::kLongformer:
      return fmt::format("longformer:{},{}", kind.window, kind.globals);
    case AttentionKindType::kBigBird:
      return fmt::format("bigbird:{},{},{}", kind.block, kind.random_blocks, kind.globals);
    case AttentionKindType::kLinformer:
      return fmt::format("linformer:{}", kind.rank);
    case AttentionKindType::kPerformer:
      return fmt::format("performer:{}", kind.features);
    case AttentionKindType::kLinear:
      return "linear";
  }
  return "full";
}

}  // namespace tokvec
