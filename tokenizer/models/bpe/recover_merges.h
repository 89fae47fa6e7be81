// The merge list of a BPE model given by ranks (tiktoken files: a token's rank is its id, and no merge list is
// stored), recovered as minbpe's `recover_merges` does (karpathy/minbpe, gpt4.py): token `id` is the merge of
// the two tokens that byte-pair encoding of its bytes, allowed only the ranks below `id`, reduces it to.
// The tokenizer.json writer uses it, since Hugging Face's BPE needs "merges".
//
//   ranks: 0..255 the bytes, 256 "ab", 257 "abc"
//   RecoverMerge(bpe, 257, ByteIdsOf(bpe)) == {256 ("ab"), 'c'}
//   RecoverMerges(gpt2_tiktoken_model)     == GPT-2's merges.txt, in order (tests/tokenizer/models/bpe/
//                                             recover_merges_test.cc)
#ifndef TOKVEC_TOKENIZER_MODELS_BPE_RECOVER_MERGES_H_
#define TOKVEC_TOKENIZER_MODELS_BPE_RECOVER_MERGES_H_

#include <array>
#include <optional>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {

// ids[b]: the token spelled by the single byte b, if there is one.
using ByteIds = std::array<std::optional<TokenId>, 256>;
ByteIds ByteIdsOf(const BpeModel& bpe);

// The two tokens that BPE with the ranks below `id` reduces token `id`'s bytes to; nullopt when a byte has no
// token or the bytes do not reduce to exactly two tokens (e.g. a token of one byte).
std::optional<BpeModel::MergePair> RecoverMerge(const BpeModel& bpe, TokenId id, const ByteIds& byte_ids);

// RecoverMerge of every token of two or more bytes, in id (rank) order, skipping those without one.
std::vector<BpeModel::MergePair> RecoverMerges(const BpeModel& bpe);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_MODELS_BPE_RECOVER_MERGES_H_
