// Continuing the BPE training of an existing byte-level tokenizer on new text (`tokvec extend --more-merges`):
// every existing id, token and merge stays where it is, the new merges come after the old ones and their tokens
// take the ids after every existing id (special and added tokens included), so a model's embedding table only
// grows.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> before, Tokenizer::Load("gpt2.tiktoken"));
//   TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, Tokenizer::LoadSpec("gpt2.tiktoken", {}));
//   TOKVEC_ASSIGN_OR_RETURN(MoreMergesReport report,
//                           AddMoreMerges({"japanese.txt"}, {.merges = 1000}, *before, &spec));
//   // spec.bpe: 50,000 merges + 1,000; the new tokens are ids 50,257..51,256
//
// The new text is cut as the tokenizer cuts it (its normalizer and pre-tokenizer), each piece is merged by the
// existing model, and training goes on from there by the rules of bpe_trainer.h (the most frequent adjacent pair,
// ties by bytes). A tiktoken model (merges by rank) is first given its merge list (recover_merges.h, the list
// `tokvec convert --to json` writes): the result is a merge-list model whose old merges encode as the ranks did.
// Text where no new merge applies keeps its ids; text where one applies gets the longer tokens.
//
// Byte-level tokenizers only (GPT-2, tiktoken files, Llama-3 / Qwen-style tokenizer.json): the trainer's symbols
// are bytes. Not yet: code-point BPE with byte fallback (Llama-2 / Mistral), word suffixes, spread training.
// Added and special tokens in the new text are counted as text (a corpus rarely holds them).
#ifndef TOKVEC_TOKENIZER_TRAINERS_MORE_MERGES_H_
#define TOKVEC_TOKENIZER_TRAINERS_MORE_MERGES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct MoreMergesOptions {
  // Exactly one of the two targets.
  std::optional<size_t> merges;      // Learn this many new merges.
  std::optional<size_t> vocab_size;  // Stop when the tokenizer has this many ids (all of them, old ones included).
  uint64_t min_frequency = 0;        // Stop when the best pair occurs fewer times.
  size_t threads = 1;                // Counting and merge workers (same result for any count).
  bool split_lines = false;          // Count each line on its own (word_counter.h).
  std::function<void(uint64_t bytes_read)> count_progress;
  std::function<void(size_t merges_done)> merge_progress;
};

struct MoreMergesReport {
  size_t old_ids = 0;     // The tokenizer's ids before (one past the largest).
  size_t old_merges = 0;  // Its merges before (recovered ones for a tiktoken model).
  size_t new_merges = 0;
  size_t new_tokens = 0;  // Ids added (a merge that spells an existing token adds none).
  std::string note;       // Why training stopped before its target, or empty.
};

// Counts the pieces of `paths` ("-" is standard input) as `before` cuts them, learns new merges and puts the
// extended model in `spec` (what Tokenizer::LoadSpec read for `before`). Errors: a tokenizer that is not
// byte-level BPE, no target or both, a vocabulary size not above the existing ids, an empty corpus, unreadable
// files; `spec` is unchanged then.
absl::StatusOr<MoreMergesReport> AddMoreMerges(const std::vector<std::string>& paths,
                                               const MoreMergesOptions& options, const Tokenizer& before,
                                               TokenizerSpec* spec);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_MORE_MERGES_H_
