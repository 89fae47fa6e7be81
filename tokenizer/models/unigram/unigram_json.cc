#include "tokenizer/models/unigram/unigram_json.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {

absl::StatusOr<UnigramModel> ReadHfUnigramModel(const nlohmann::json& model, const std::string& path) {
  if (!model.contains("vocab") || !model["vocab"].is_array()) {
    return HfKeyError(path, "model.vocab", "missing or not an array of [\"piece\", score] pairs");
  }
  const nlohmann::json& list = model["vocab"];
  std::vector<UnigramModel::Piece> pieces;
  pieces.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& entry = list[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number()) {
      return HfKeyError(path, fmt::format("model.vocab[{}]", i), "expected a [\"piece\", score] pair");
    }
    pieces.push_back({entry[0].get<std::string>(), entry[1].get<double>()});
  }
  std::optional<TokenId> unk_id;
  if (model.contains("unk_id") && !model["unk_id"].is_null()) {
    if (!model["unk_id"].is_number_unsigned() || model["unk_id"].get<uint64_t>() >= pieces.size()) {
      return HfKeyError(path, "model.unk_id",
                        fmt::format("expected null or an id below the {} vocabulary pieces, got {}", pieces.size(),
                                    model["unk_id"].dump()));
    }
    unk_id = static_cast<TokenId>(model["unk_id"].get<uint64_t>());
  }
  bool byte_fallback = false;
  if (model.contains("byte_fallback") && !model["byte_fallback"].is_null()) {
    if (!model["byte_fallback"].is_boolean()) return HfKeyError(path, "model.byte_fallback", "expected true or false");
    byte_fallback = model["byte_fallback"].get<bool>();
  }
  absl::StatusOr<UnigramModel> unigram = UnigramModel::Create(std::move(pieces), unk_id, byte_fallback);
  if (!unigram.ok()) return HfKeyError(path, "model.vocab", std::string(unigram.status().message()));
  return unigram;
}

}  // namespace tokvec
