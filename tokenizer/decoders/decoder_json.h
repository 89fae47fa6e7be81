// The "decoder" of a Hugging Face tokenizer.json, read into a TokenDecoder (decoders.h): Replace {pattern,
// content}, ByteFallback, Fuse, Strip {content, start, stop}, Metaspace {replacement, prepend_scheme (or the older
// add_prefix_space), split}, ByteLevel, WordPiece {prefix, cleanup}, BPEDecoder {suffix}, and a Sequence of them.
// A decoder without "type" (older files) is the first kind of Hugging Face's untagged fallback whose fields are
// there: BPEDecoder, WordPiece, CTC (refused), Replace, Strip.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<TokenDecoder> decoder, ReadHfDecoder(json["decoder"], path));
//
// Errors name the key in the file ("decoder.decoders[3].start") as text/tokenizer_json_fields.h does.
#ifndef TOKVEC_TOKENIZER_DECODERS_DECODER_JSON_H_
#define TOKVEC_TOKENIZER_DECODERS_DECODER_JSON_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/decoders/decoders.h"
#include "tokenizer/decoders/wordpiece_decoder.h"

namespace tokvec {

// `node`: the "decoder" value; null (or absent) gives a decoder that joins spellings with spaces.
absl::StatusOr<std::unique_ptr<TokenDecoder>> ReadHfDecoder(const nlohmann::json& node, const std::string& path);

// The decoder of a WordPiece model, which runs on its own (Tokenizer's WordPiece decode): `node` null (or absent:
// nullptr) gives nullopt (spellings joined by spaces); WordPiece {prefix, cleanup} its WordPieceDecoder; any other
// decoder is an error.
absl::StatusOr<std::optional<WordPieceDecoder>> ReadHfWordPieceDecoder(const nlohmann::json* node,
                                                                       const std::string& path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_DECODERS_DECODER_JSON_H_
