// Hugging Face BPE's word affixes (tokenizers/src/models/bpe/model.rs, BPE::merge_word; checked on tokenizers
// 0.23.2): the first symbols of a pre-tokenized word when the model has a `continuing_subword_prefix` (e.g. "##",
// put before every symbol but the first) or an `end_of_word_suffix` (CLIP's "</w>", put after the last symbol).
//
// A word is split into units (bytes for a byte-level model, code points for a model over code points); unit i
// becomes the token spelled prefix (if i > 0) + unit + suffix (if last). A unit without such a token is, as in
// CharSymbols (char_symbols.h): with byte_fallback, the "<0xNN>" tokens of every byte of that affixed spelling
// (Hugging Face takes the bytes of the affixed string, so "##é" falls back to <0x23> <0x23> <0xC3> <0xA9>); else
// unk (fused with fuse_unk, waiting until the next known unit), else dropped. The merges then run as usual:
// a merge of "x" and "##y" makes "xy" (Hugging Face drops the prefix's length from the right side), which
// BuildSpelledBpe's `merge_right_skip` gives the BpeModel.
//
// Plain models (no affix) never come here: the byte and code-point models (bpe_tokenizer_models.h) call
// AffixSymbols once per word only when TokenizerSpec::affixes is set, so the byte-level and code-point loops
// pay nothing.
//
//   BpeAffixes affixes{.suffix = "</w>", .code_points = false};
//   affixes.fallback_ids = FallbackTokenIds(bpe);
//   AffixSymbols("photo", 0, bpe, affixes, &symbols);  // p h o t o</w>, then bpe.Merge(symbols)
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_BPE_AFFIXES_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_BPE_AFFIXES_H_

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/models/bpe/char_symbols.h"

namespace tokvec {

struct BpeAffixes {
  std::string prefix;        // As token bytes (a byte-level model's spelling decoded); may be empty.
  std::string suffix;        // As token bytes; may be empty.
  bool code_points = false;  // Units are code points (ModelType::kChar), else bytes (ModelType::kByte).
  CharBpeOptions unknown;    // unk_token, fuse_unk, byte_fallback.
  std::array<TokenId, 256> fallback_ids{};  // FallbackTokenIds of the model.
};

// Appends the symbols of the word `text` to `symbols`; each begins at `base` + its byte offset in `text`.
void AffixSymbols(std::string_view text, size_t base, const BpeModel& bpe, const BpeAffixes& affixes,
                  std::vector<BpeModel::Symbol>* symbols);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_BPE_AFFIXES_H_
