// An encoding written as one line of text, in the formats of `tokvec encode` (any front end that prints
// encodings can share them):
//
//   kIds       7 2 7 13                        ids, space-separated
//   kTokens    low </w> low er</w>             Tokenizer::TokenSpelling (`Ġcat` for byte models)
//   kReadable  ␣cat ⏎                          ReadableToken (tokenizer/readable_token.h)
//   kJson      {"ids": [...], "tokens": [...], "offsets": [[begin, end], ...]}
//
//   std::string out;
//   AppendEncoding(tokenizer, encoding, EncodingTextFormat::kJson, &out);  // the object and a '\n'
#ifndef TOKVEC_TOKENIZER_BATCH_ENCODING_TEXT_H_
#define TOKVEC_TOKENIZER_BATCH_ENCODING_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/processors/encoded_tokens.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

// kReadable: --tokens --readable, each token as tokenizer/readable_token.h shows it (`␣cat`, `⏎`, `<0xE6>`).
enum class EncodingTextFormat { kIds, kTokens, kReadable, kJson };

// The spelling of `id` for kTokens / kReadable (ReadableToken for kReadable, TokenSpelling otherwise).
std::string SpellToken(const Tokenizer& tokenizer, TokenId id, EncodingTextFormat format);

// Appends `value` in decimal.
void AppendNumber(uint64_t value, std::string* out);

// Appends ids as space-separated decimals (a leading space when `space_first`).
void AppendIds(const TokenId* ids, size_t n, bool space_first, std::string* out);

// Appends a JSON string; bytes that are not UTF-8 (never in token spellings) become U+FFFD.
void AppendJsonString(std::string_view text, std::string* out);

// Appends one encoding as one output line (its '\n' included).
void AppendEncoding(const Tokenizer& tokenizer, const Encoding& encoding, EncodingTextFormat format,
                    std::string* out);

// One encoding of tokenizer/sequence_encoding.h (truncated, padded) as one output line: kIds, kTokens and kReadable
// as AppendEncoding (padding tokens included); kJson adds "type_ids", "attention_mask", "special_tokens_mask",
// "word_ids" (null for none) and, when truncation cut windows off, "overflowing" (each window an object of the same
// keys). `b_begin` is added to the offsets of text b's tokens (a pair's line: where b starts). With
// `windows_as_lines` (not kJson), each overflowing window follows as a line of its own.
void AppendEncodedTokens(const Tokenizer& tokenizer, const EncodedTokens& rows, EncodingTextFormat format,
                         size_t b_begin, bool windows_as_lines, std::string* out);

// The post-processor's ids before / after a single text (none without a post-processor): what
// add_special_tokens adds around it.
std::vector<TokenId> SpecialIdsBefore(const Tokenizer& tokenizer);
std::vector<TokenId> SpecialIdsAfter(const Tokenizer& tokenizer);

// The ids or spellings of `ids`, space-separated, no line end.
std::string SpellAll(const Tokenizer& tokenizer, const std::vector<TokenId>& ids, EncodingTextFormat format);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_BATCH_ENCODING_TEXT_H_
