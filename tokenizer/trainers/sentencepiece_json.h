// Sections of the tokenizer.json files the SentencePiece-style trainers write (spbpe_trainer.h,
// unigram_trainer.h), in Hugging Face's shapes.
//
//   json["decoder"] = SentencePieceDecoderJson();  // "▁" -> " ", <0xNN> -> bytes, fused, one leading space dropped
//   json["added_tokens"].push_back(SpecialAddedTokenJson(0, "<unk>"));
#ifndef TOKVEC_TOKENIZER_TRAINERS_SENTENCEPIECE_JSON_H_
#define TOKVEC_TOKENIZER_TRAINERS_SENTENCEPIECE_JSON_H_

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace tokvec {

// Llama-2's decoder: Sequence [Replace("▁", " "), ByteFallback, Fuse, Strip(" ", 1, 0)].
nlohmann::ordered_json SentencePieceDecoderJson();

// An added token that is special and matched as written (not normalized, no strip, not single-word).
nlohmann::ordered_json SpecialAddedTokenJson(size_t id, const std::string& content);
// The same, not special (SentencePiece's user-defined symbols: kept whole, and decoded as text).
nlohmann::ordered_json AddedTokenJson(size_t id, const std::string& content, bool special);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_SENTENCEPIECE_JSON_H_
