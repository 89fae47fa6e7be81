// A byte-level BPE vocabulary spelled in GPT-2's byte-to-unicode alphabet (vocab.json, merges.txt and
// Hugging Face's tokenizer.json all use it), turned into a BpeModel.
//
//   SpelledVocab vocab;
//   vocab.tokens = {{"a", 0}, {"b", 1}, {"ab", 2}};
//   vocab.merges = {{"a", "b", "merges.txt:2"}};
//   TOKVEC_ASSIGN_OR_RETURN(BpeModel bpe, BuildSpelledBpe(vocab, "vocab.json"));
#ifndef TOKVEC_TOKENIZER_SPELLED_VOCAB_H_
#define TOKVEC_TOKENIZER_SPELLED_VOCAB_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct SpelledMerge {
  std::string left;   // Spelling of the left token, e.g. "Ġ".
  std::string right;  // Spelling of the right token, e.g. "t".
  std::string where;  // Where it was read, for messages: "merges.txt:12" or "model.merges[10]".
};

struct SpelledVocab {
  std::vector<std::pair<std::string, uint64_t>> tokens;  // (spelling, id) in file order.
  std::vector<SpelledMerge> merges;                      // In rank order.
};

// Errors name `vocab_where` and the token, or the merge's `where`: a spelling outside the byte-to-unicode
// alphabet, two tokens with one id, a merge naming an unknown token, a merge whose result is not a token.
// `byte_level` false: spellings are the tokens' bytes themselves (BPE over code points, char_symbols.h).
absl::StatusOr<BpeModel> BuildSpelledBpe(const SpelledVocab& vocab, const std::string& vocab_where,
                                         bool byte_level = true);

// A byte-level spec around `bpe` with every other field at its default (TokenizerSpec has no default
// constructor because BpeModel has none).
TokenizerSpec ByteLevelSpec(BpeModel bpe);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_SPELLED_VOCAB_H_
