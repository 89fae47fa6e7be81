// Hugging Face's WordPiece decoder: token spellings back to text.
//
//   WordPieceDecoder{"##", true}.Decode({"play", "##ing", "it", "'", "s", "fine", "."}) == "playing it's fine."
//
// A token after the first that starts with the prefix is joined to the one before, with the prefix removed
// once; any other token after the first gets a space before it. With cleanup, each token's text (its space
// included) then has these replaced, in this order: " ." -> "." , " ?" -> "?", " !" -> "!", " ," -> ",",
// " ' " -> "'", " n't" -> "n't", " 'm" -> "'m", " do not" -> " don't", " 's" -> "'s", " 've" -> "'ve",
// " 're" -> "'re" (tokenizers/src/decoders/wordpiece.rs, checked on tokenizers 0.23.2: the replacements see
// one token at a time, so "I" "do" "not" stays "I do not").
#ifndef TOKVEC_TOKENIZER_DECODERS_WORDPIECE_DECODER_H_
#define TOKVEC_TOKENIZER_DECODERS_WORDPIECE_DECODER_H_

#include <string>
#include <string_view>

namespace tokvec {

struct WordPieceDecoder {
  std::string prefix = "##";  // The continuing-subword prefix to remove.
  bool cleanup = true;        // Tidy the spaces tokenization put around punctuation and contractions.

  // Appends token number `index` (0 for the first) of the sequence being decoded to `text`.
  void Append(std::string_view token, size_t index, std::string* text) const;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_DECODERS_WORDPIECE_DECODER_H_
