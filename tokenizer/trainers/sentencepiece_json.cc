#include "tokenizer/trainers/sentencepiece_json.h"

namespace tokvec {

nlohmann::ordered_json SentencePieceDecoderJson() {
  const std::string meta = "\xE2\x96\x81";  // U+2581 "▁"
  return {{"type", "Sequence"},
          {"decoders",
           {{{"type", "Replace"}, {"pattern", {{"String", meta}}}, {"content", " "}},
            {{"type", "ByteFallback"}},
            {{"type", "Fuse"}},
            {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
}

nlohmann::ordered_json AddedTokenJson(size_t id, const std::string& content, bool special) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", special}};
}

nlohmann::ordered_json SpecialAddedTokenJson(size_t id, const std::string& content) {
  return AddedTokenJson(id, content, true);
}

}  // namespace tokvec
