// Reading the fields of a Hugging Face tokenizer.json component ({"type": ..., fields}), shared by every
// component's reader (normalizers/normalizer_json.h, decoders/decoder_json.h, the format's dispatcher
// formats/tokenizer_json_format.cc). Errors are InvalidArgument "PATH: key 'KEY': what", KEY the dotted path of the
// bad key in the file (e.g. "decoder.decoders[3].start"), so a user can find it.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::string content, HfStringField(node, "content", path, "decoder"));
//   TOKVEC_ASSIGN_OR_RETURN(bool left, HfBoolField(node, "strip_left", /*fallback=*/false, path, key));
#ifndef TOKVEC_TOKENIZER_TEXT_TOKENIZER_JSON_FIELDS_H_
#define TOKVEC_TOKENIZER_TEXT_TOKENIZER_JSON_FIELDS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/text/text_pattern.h"

namespace tokvec {

// InvalidArgument "PATH: key 'KEY': WHAT".
absl::Status HfKeyError(const std::string& path, const std::string& key, const std::string& what);

// node[name] as a string; missing or another type is an error at KEY.name.
absl::StatusOr<std::string> HfStringField(const nlohmann::json& node, const char* name, const std::string& path,
                                          const std::string& key);
// node[name] as a bool; missing or null gives `fallback`.
absl::StatusOr<bool> HfBoolField(const nlohmann::json& node, const char* name, bool fallback,
                                 const std::string& path, const std::string& key);
// node[name] as one character (one code point), as Hugging Face's `char` fields require.
absl::StatusOr<std::string> HfCharField(const nlohmann::json& node, const char* name, const std::string& path,
                                        const std::string& key);
// node["pattern"]: {"String": "..."} (a literal) or {"Regex": "..."} (text_pattern.h).
absl::StatusOr<TextPattern> HfPatternField(const nlohmann::json& node, const std::string& path, const std::string& key);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_TOKENIZER_JSON_FIELDS_H_
