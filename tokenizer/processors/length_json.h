// Reads Hugging Face tokenizer.json's "truncation" and "padding" sections (tokenizers/src/utils/truncation.rs,
// padding.rs) into TruncationParams (truncation.h) and PaddingParams (padding.h):
//   truncation  null, or {"direction": "Right" | "Left" (absent in older files: Right), "max_length": N,
//               "strategy": "LongestFirst" | "OnlyFirst" | "OnlySecond", "stride": N}
//   padding     null, or {"strategy": "BatchLongest" | {"Fixed": N}, "direction": "Right" | "Left",
//               "pad_to_multiple_of": N | null (absent in older files), "pad_id": N, "pad_type_id": N,
//               "pad_token": "[PAD]"}
// The other fields are required, as Hugging Face requires them.
//
//   TOKVEC_ASSIGN_OR_RETURN(spec.truncation, ReadHfTruncation(json, path));
#ifndef TOKVEC_TOKENIZER_PROCESSORS_LENGTH_JSON_H_
#define TOKVEC_TOKENIZER_PROCESSORS_LENGTH_JSON_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/processors/padding.h"
#include "tokenizer/processors/truncation.h"

namespace tokvec {

// `file` is the whole tokenizer.json; an absent or null section is nullopt. Errors name `path` and the key.
absl::StatusOr<std::optional<TruncationParams>> ReadHfTruncation(const nlohmann::json& file, const std::string& path);
absl::StatusOr<std::optional<PaddingParams>> ReadHfPadding(const nlohmann::json& file, const std::string& path);

// The sections as Hugging Face writes them (null when not set).
nlohmann::ordered_json WriteHfTruncation(const std::optional<TruncationParams>& truncation);
nlohmann::ordered_json WriteHfPadding(const std::optional<PaddingParams>& padding);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PROCESSORS_LENGTH_JSON_H_
