// Hugging Face's Metaspace pre-tokenizer (SentencePiece's whitespace handling; T5, XLM-R, ALBERT, Llama): every
// ' ' becomes the replacement "▁", a "▁" is prepended to text that does not start with one (prepend_scheme
// "always"; "first": only to text that begins the input, not after a special token; "never"), and with split the
// text is cut before each "▁" (the "▁" starts the next piece). With whitespace_split first (T5's
// Sequence [WhitespaceSplit, Metaspace]) each white-space-separated word is handled on its own, so every word
// gets its "▁" under "always" and only a word at input offset 0 under "first".
//
//   MetaspacePreTokenizer metaspace({});  // "▁", always, split
//   NormalizedText out; std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(metaspace.Rewrite("hi  you", true, &out, &pieces));
//   // out.text "▁hi▁▁you", pieces "▁hi" "▁" "▁you"
//
// The text changes, so it implements PreTokenizer::Rewrite (Split is an error); inserted "▁" map to the
// character they were put before, a replaced space to the space.
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_METASPACE_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_METASPACE_PRE_TOKENIZER_H_

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  enum class Prepend { kAlways, kFirst, kNever };
  struct Options {
    std::string replacement = "\xE2\x96\x81";  // U+2581 "▁"; one character.
    Prepend prepend = Prepend::kAlways;
    bool split = true;
    bool whitespace_split = false;  // Sequence [WhitespaceSplit, Metaspace].
  };
  explicit MetaspacePreTokenizer(Options options) : options_(std::move(options)) {}

  absl::Status Split(std::string_view text, std::vector<Piece>* pieces) const override;
  bool Rewrites() const override { return true; }
  absl::Status Rewrite(std::string_view text, bool at_start, NormalizedText* out,
                       std::vector<Piece>* pieces) const override;
  // "metaspace" with its options, e.g. "metaspace(▁,first,split)".
  std::string name() const override;
  const Options& options() const { return options_; }

 private:
  // Rewrites text[begin, end) (a word, or all of it) onto `out`, appending its pieces.
  void RewriteSection(std::string_view text, size_t begin, size_t end, bool prepend, NormalizedText* out,
                      std::vector<Piece>* pieces) const;

  Options options_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_METASPACE_PRE_TOKENIZER_H_
