// The pre_tokenizer of a byte-level BPE tokenizer.json (Hugging Face tokenizers 0.23), read into a PreTokenizer.
//
//   TOKVEC_ASSIGN_OR_RETURN(HfPreTokenizerChoice choice, ReadHfByteLevelPreTokenizer(json["pre_tokenizer"], path));
//   // choice.pre_tokenizer splits text; choice.add_prefix_space asks for the prefix_space normalizer step.
//
// Accepted: ByteLevel, or a Sequence (nested Sequences are flattened) of exactly one ByteLevel and any of
//   Split {pattern: {Regex | String}, behavior, invert}   split_pre_tokenizer.h (ICU regex), split_behavior.h
//   Digits {individual_digits}, Punctuation {behavior}, WhitespaceSplit, CharDelimiterSplit {delimiter}
//                                                         char_class_pre_tokenizer.h
//   Whitespace                                            Split \w+|[^\w\s]+, Removed, inverted
//   UnicodeScripts                                        unicode_scripts_pre_tokenizer.h
//   BertPreTokenizer                                      WhitespaceSplit, then Punctuation (Isolated)
// ByteLevel {add_prefix_space, use_regex, trim_offsets}: use_regex splits with GPT-2's pattern (preset gpt2);
// add_prefix_space is read only on a ByteLevel that comes first (it is then the prefix_space normalizer step;
// Hugging Face prepends a space to every piece, so a later ByteLevel with it is refused); trim_offsets changes
// offsets only.
//
// Hugging Face's semantics (tokenizers/src/pre_tokenizers/sequence.rs, byte_level.rs): each step re-splits every
// piece of the step before. Steps before the ByteLevel see the text; the ByteLevel turns every byte into one
// code point of GPT-2's byte alphabet (byte_unicode.h), and the steps after it see those code points: a space is
// U+0120, and the two bytes of "²" are "Â" and "²", so Digits after ByteLevel cuts between them. HfPreTokenizer
// does the same on a mapped copy of the text and gives the pieces as byte ranges of the original.
//
// Two shapes keep the fast splitters and FindCut: ByteLevel {use_regex: true} alone is the gpt2 preset, and
// Sequence [Split {Isolated, invert false}, ByteLevel {use_regex: false}] is MakeSplitPreTokenizer(pattern), a
// preset when the regex is one of theirs (gpt2, cl100k, o200k). Every other shape is an HfPreTokenizer, whose
// FindCut finds no cut (a chunked encode keeps the text whole).
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRE_TOKENIZER_JSON_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRE_TOKENIZER_JSON_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

// name() of an HfPreTokenizer: this prefix and the pre_tokenizer JSON (model files store it so).
inline constexpr std::string_view kHfPreTokenizerPrefix = "hf:";

class HfPreTokenizer : public PreTokenizer {
 public:
  // A step splits each piece (splitter), or is the ByteLevel (byte_level; splitter is GPT-2's or null).
  struct Step {
    std::unique_ptr<PreTokenizer> splitter;
    bool byte_level = false;
  };
  HfPreTokenizer(std::vector<Step> steps, std::string json) : steps_(std::move(steps)), json_(std::move(json)) {}
  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  std::string name() const override { return std::string(kHfPreTokenizerPrefix) + json_; }
  // The pre_tokenizer JSON it was read from (without add_prefix_space, which is the normalizer's).
  const std::string& json() const { return json_; }
  // HfPreTokenizerJson.
  absl::StatusOr<std::string> ByteLevelJson(bool add_prefix_space) const override;

 private:
  std::vector<Step> steps_;
  std::string json_;
};

struct HfPreTokenizerChoice {
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  bool add_prefix_space = false;
};

// Reads `node` (the pre_tokenizer of the file `path`). Errors name the file and key: an unsupported type,
// a bad behaviour name, a regex ICU rejects, no ByteLevel, two ByteLevels, add_prefix_space on a later ByteLevel.
absl::StatusOr<HfPreTokenizerChoice> ReadHfByteLevelPreTokenizer(const nlohmann::json& node, const std::string& path);

// The pre_tokenizer JSON of `pre_tokenizer` for a tokenizer.json, with add_prefix_space set on its first step
// (a ByteLevel; else FailedPrecondition).
absl::StatusOr<std::string> HfPreTokenizerJson(const HfPreTokenizer& pre_tokenizer, bool add_prefix_space);

// For a BPE model over code points (char_bpe_pre_tokenizer.h): the steps of a pre_tokenizer, a Sequence flattened
// (each with its key for messages), and an HfPreTokenizer of steps that only split (every type above but
// ByteLevel; nodes of other types are the caller's to refuse first).
struct HfPreTokenizerNode {
  const nlohmann::json* node;
  std::string key;
};
absl::StatusOr<std::vector<HfPreTokenizerNode>> FlattenHfPreTokenizer(const nlohmann::json& node,
                                                                      const std::string& path, const std::string& key);
absl::StatusOr<std::unique_ptr<HfPreTokenizer>> ReadHfSplitSteps(const std::vector<HfPreTokenizerNode>& nodes,
                                                                 const std::string& path);

// The pre_tokenizer of a model over code points: BPE over code points (SentencePiece-style), and WordPiece and
// Unigram in other shapes than their fast ones. `node` null (absent) or JSON null: the normalized text is one piece
// (whole_text_pre_tokenizer.h); Metaspace {replacement, prepend_scheme (or the older add_prefix_space), split}
// (metaspace_pre_tokenizer.h); or splitters (every type above but ByteLevel), a Sequence flattened, with at most
// one Metaspace among them (metaspace_sequence_pre_tokenizer.h); each piece is then merged on its own. `model`
// names the model in messages ("BPE", "WordPiece", "Unigram").
// `fast` names the shapes a model's reader takes with a splitter of its own, which FindCut can cut (Hugging Face's
// semantics all the same): BertPreTokenizer (WordPiece), WhitespaceSplit (WordPiece, Unigram), and Sequence
// [WhitespaceSplit, Metaspace] as one Metaspace (Unigram: T5).
struct HfCodePointShapes {
  bool bert = false;
  bool whitespace_split = false;
  bool whitespace_metaspace = false;
};
absl::StatusOr<std::unique_ptr<PreTokenizer>> ReadHfCodePointPreTokenizer(const nlohmann::json* node,
                                                                         const std::string& path,
                                                                         const std::string& model,
                                                                         HfCodePointShapes fast = {});

// True when `node` (a pre_tokenizer; nullptr: absent) is ByteLevel or a Sequence holding one: a BPE vocabulary is
// then spelled in GPT-2's byte alphabet. Otherwise (null, absent, anything else) a BPE model works on code points.
bool HfPreTokenizerIsByteLevel(const nlohmann::json* node);

// The canonical preset name ("gpt2", "cl100k", "o200k") whose regex is exactly `regex`, else empty.
std::string PresetOfRegex(std::string_view regex);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRE_TOKENIZER_JSON_H_
