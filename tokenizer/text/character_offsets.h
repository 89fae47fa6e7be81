// Token offsets rounded out to whole UTF-8 characters, as Hugging Face's tokenizers report them.
//
// A byte-level token (or a byte-fallback token such as <0xE6>) may hold only some bytes of a multi-byte
// character. tokvec's offsets give the bytes a token covers, so the offsets of a text tile its bytes; Hugging
// Face's alignments are per character of the original text, so such a token covers the whole character (each of
// the three tokens of a CJK character split into bytes gets the character's range). Tokenizers loaded from a
// tokenizer.json (TokenizerSpec::whole_character_offsets) round their offsets this way, so that `encode --format
// json` and Tokenizer::Encode give Hugging Face's offsets (scripts/conformance.sh --only offsets).
//
//   size_t begin = 1, end = 2;                       // the middle byte of "日" (E6 97 A5)
//   WidenToCharacters("日", &begin, &end);            // begin == 0, end == 3
//
// Bytes that are not part of a well-formed UTF-8 sequence are characters of their own (offsets stay as they are).
// An empty range between two characters (e.g. [0, 0]) is left alone; one inside a character (a byte token whose
// stretch another token covers) becomes that character.
#ifndef TOKVEC_TOKENIZER_TEXT_CHARACTER_OFFSETS_H_
#define TOKVEC_TOKENIZER_TEXT_CHARACTER_OFFSETS_H_

#include <cstddef>
#include <string_view>

namespace tokvec {

// Moves *begin back to the start of the character holding text[*begin] and *end forward to the end of the
// character holding text[*end - 1].
void WidenToCharacters(std::string_view text, size_t* begin, size_t* end);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_CHARACTER_OFFSETS_H_
