// The code point classes of Hugging Face's BERT pipeline (BertNormalizer, StripAccents, BertPreTokenizer).
//
//   IsBertPunctuation(U'!') && IsBertPunctuation(U'、') && !IsBertPunctuation(U'a')
//
// Hugging Face takes general categories from an older Unicode version than ICU's, so the categories are
// tables measured from tokenizers 0.23.2 itself (tokenizer/text/bert_unicode_tables.inc, written by
// scripts/gen_bert_unicode_tables.mjs); white space is Unicode White_Space (ICU), as Rust's char::is_whitespace.
#ifndef TOKVEC_TOKENIZER_TEXT_BERT_UNICODE_H_
#define TOKVEC_TOKENIZER_TEXT_BERT_UNICODE_H_

namespace tokvec {

// BertNormalizer clean_text removes it: NUL, U+FFFD and control/format/private-use code points except \t \n \r.
bool IsBertDropped(char32_t c);
// White_Space; clean_text maps it to ' ' and the BERT pre-tokenizers cut there.
bool IsBertWhitespace(char32_t c);
// A piece of its own in BertPreTokenizer: ASCII punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) or category P*.
bool IsBertPunctuation(char32_t c);
// Removed by StripAccents: the combining marks (categories Mn, Mc, Me) in Hugging Face's tables.
bool IsNonspacingMark(char32_t c);
// Removed by BertNormalizer strip_accents (after NFD): category Mn only, so a spacing vowel sign such as
// Devanagari U+093F stays (StripAccents removes it).
bool IsBertStripMark(char32_t c);
// BertNormalizer handle_chinese_chars puts a space on each side: the CJK Unified Ideographs blocks.
bool IsChineseChar(char32_t c);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_BERT_UNICODE_H_
