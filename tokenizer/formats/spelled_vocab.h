// A byte-level BPE vocabulary spelled in GPT-2's byte-to-unicode alphabet (vocab.json, merges.txt and
// Hugging Face's tokenizer.json all use it), turned into a BpeModel.
//
//   SpelledVocab vocab;
//   vocab.tokens.Add("a", 0);  vocab.tokens.Add("b", 1);  vocab.tokens.Add("ab", 2);
//   vocab.merges.Add("a", "b");
//   vocab.merge_where = [](size_t rank) { return fmt::format("merges.txt:{}", rank + 2); };
//   TOKVEC_ASSIGN_OR_RETURN(BpeModel bpe, BuildSpelledBpe(vocab, "vocab.json"));
//
// Loading speed: the spellings arrive in flat arrays (text/flat_vocab.h) and are decoded into one reused buffer; the
// merges are resolved through the model's own bytes -> id table, so no map of spellings is built.
#ifndef TOKVEC_TOKENIZER_FORMATS_SPELLED_VOCAB_H_
#define TOKVEC_TOKENIZER_FORMATS_SPELLED_VOCAB_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "tokenizer/text/flat_vocab.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct SpelledVocab {
  FlatVocab tokens;   // (spelling, id) in file order.
  FlatMerges merges;  // In rank order.
  // Where merge `rank` was read, for messages: "merges.txt:12" or "tokenizer.json: key 'model.merges[10]'".
  std::function<std::string(size_t rank)> merge_where;
};

// Errors name `vocab_where` and the token, or where the merge was read: a spelling outside the byte-to-unicode
// alphabet, two tokens with one id, a merge naming an unknown token, a merge whose result is not a token.
// With `unreachable`, a spelling outside the alphabet (or an empty one) is no error: no input can reach such a
// token (Hugging Face loads them, as in Whisper's and Cohere's files), so its id is a gap of the BpeModel and
// (id, spelling) goes to `unreachable`; merges that name it are dropped, as they can never apply.
// `byte_level` false: spellings are the tokens' bytes themselves (BPE over code points, char_symbols.h).
// `merge_right_skip`: a merge drops that many bytes from the start of its right token (BpeModel::WithMerges;
// Hugging Face's continuing_subword_prefix, bpe_affixes.h).
absl::StatusOr<BpeModel> BuildSpelledBpe(const SpelledVocab& vocab, const std::string& vocab_where,
                                         std::vector<UnreachableToken>* unreachable = nullptr,
                                         bool byte_level = true, size_t merge_right_skip = 0);

// A byte-level spec around `bpe` with every other field at its default (TokenizerSpec has no default
// constructor because BpeModel has none).
TokenizerSpec ByteLevelSpec(BpeModel bpe);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_FORMATS_SPELLED_VOCAB_H_
