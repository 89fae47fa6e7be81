// The first symbols of a piece in a BPE model over code points (ModelType::kChar: SentencePiece-style BPE as
// in Llama-2, Mistral, Yi; the vocabulary is plain UTF-8, spaces usually spelled "▁"), before merging.
//
// Each code point with a token is that token. One without (Hugging Face's BPE::merge_word, checked on
// tokenizers 0.23.2):
//   - byte_fallback, and every byte of it has a "<0xNN>" token (uppercase hex): those byte tokens;
//   - else, with an unk token: unk; with fuse_unk, consecutive unknowns make one unk. An unk waits until the
//     next code point that has a token (or the end): byte-fallback tokens in between come before it, as in
//     Hugging Face ("€€é" with <0xC3> <0xA9> but no <0xAC>: <0xC3> <0xA9> <unk>); its offset then begins where
//     the last of them begins (offsets stay in order);
//   - else it is dropped.
//
//   CharSymbols("aé", 0, bpe, {.byte_fallback = true}, fallback_ids, &symbols);  // a <0xC3> <0xA9>
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_CHAR_SYMBOLS_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_CHAR_SYMBOLS_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {

struct CharBpeOptions {
  std::optional<TokenId> unk_id;  // Hugging Face's unk_token; none: unknown code points are dropped.
  bool fuse_unk = false;
  bool byte_fallback = false;
};

// The id of the "<0xNN>" token for each byte, or kNoFallbackToken.
inline constexpr TokenId kNoFallbackToken = ~TokenId{0};
std::array<TokenId, 256> FallbackTokenIds(const BpeModel& bpe);

// Appends the symbols of `text` (valid UTF-8) to `symbols`; each begins at `base` + its byte offset in `text`.
void CharSymbols(std::string_view text, size_t base, const BpeModel& bpe, const CharBpeOptions& options,
                 const std::array<TokenId, 256>& fallback_ids, std::vector<BpeModel::Symbol>* symbols);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_CHAR_SYMBOLS_H_
