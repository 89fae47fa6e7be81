// Reading the parameterized steps of a Hugging Face tokenizer.json (part of tokenizer_json_format.cc's reader):
//   normalizer  Prepend {prepend}, Replace {pattern: {String} | {Regex}, content}, Strip {strip_left, strip_right}
//               (edit_normalizers.h)
//   decoder     Replace, ByteFallback, Fuse, Strip {content, start, stop}, Metaspace {replacement,
//               prepend_scheme, split}, ByteLevel, WordPiece {prefix, cleanup}, and a Sequence of them
//               (decoders.h)
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Normalizer> step, ReadHfTextNormalizer(json["normalizer"], path, "normalizer"));
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<TokenDecoder> decoder, ReadHfDecoder(json["decoder"], path));
//
// Errors are InvalidArgument "PATH: key 'KEY': what", KEY the dotted path of the bad key (e.g.
// "decoder.decoders[3].start").
#ifndef TOKVEC_TOKENIZER_FORMATS_TOKENIZER_JSON_STEPS_H_
#define TOKVEC_TOKENIZER_FORMATS_TOKENIZER_JSON_STEPS_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/decoders/decoders.h"
#include "tokenizer/normalizers/normalizer.h"

namespace tokvec {

// True for the normalizer types ReadHfTextNormalizer reads.
bool IsHfTextNormalizer(std::string_view type);
// `node` is an object whose "type" IsHfTextNormalizer accepts; `key` is where it is in the file.
absl::StatusOr<std::unique_ptr<Normalizer>> ReadHfTextNormalizer(const nlohmann::json& node, const std::string& path,
                                                                 const std::string& key);
// The "decoder" of a file: null (or absent) gives a decoder that joins spellings with spaces.
absl::StatusOr<std::unique_ptr<TokenDecoder>> ReadHfDecoder(const nlohmann::json& node, const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_FORMATS_TOKENIZER_JSON_STEPS_H_
