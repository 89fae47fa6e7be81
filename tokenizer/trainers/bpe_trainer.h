// Learning BPE merges from word counts (Sennrich et al. 2016, https://arxiv.org/abs/1508.07909), for both model
// types: word models (symbols are code points plus `</w>` after each word) and byte models (symbols are bytes).
//
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWords(paths, counter_options));
//   BpeTrainerOptions options{.type = ModelType::kWord, .merges = 4};
//   TOKVEC_ASSIGN_OR_RETURN(TrainedBpe trained, TrainBpe(std::move(words), options));
//   // "low lower newest wider" -> merges (e, r) (er, </w>) (l, o) (lo, w)
//
// The rules, exactly:
//   1. A pair's count is the sum, over every word, of the word's count times the number of adjacent positions
//      holding that pair (`aaa` holds (a, a) twice).
//   2. Each step merges the most frequent pair. Ties go to the pair whose left symbol, then right symbol, is
//      smallest in the byte order of its spelling (word models spell the end-of-word symbol `</w>`, byte models
//      use the raw bytes). Should two pairs still tie (a literal "</w>" in text spells like the end-of-word
//      symbol), the raw bytes of left then right decide, the end-of-word byte 0xFF sorting last.
//   3. In each word, occurrences merge left to right without overlap (`a a a` -> `aa a`).
//   4. Training stops after `merges` merges, or when the vocabulary reaches `vocab_size` ids, or when the best
//      pair occurs fewer than `min_frequency` times, or when no pair is left (the last two set `note`).
//
// Ids: special tokens first (in the order given), then for word models `<unk>` and `</w>`, then the alphabet in
// byte order of spelling (byte models: the 256 bytes 0x00..0xFF), then merged tokens in merge order. A merge
// whose result spells an existing token (e.g. (a, bc) after (ab, c)) reuses that token's id, as Hugging Face
// does: it counts as a merge but adds no id. The vocabulary size counts every id, `<unk>` included.
//
// Algorithm: pair counts with a pair -> words index and a max-heap with lazy invalidation (an entry whose count
// is stale is re-pushed with the current count when popped); each merge touches only the words holding the
// pair and updates counts by the delta of each occurrence, never recounting. Counts are 64-bit.
#ifndef TOKVEC_TOKENIZER_TRAINERS_BPE_TRAINER_H_
#define TOKVEC_TOKENIZER_TRAINERS_BPE_TRAINER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

struct BpeTrainerOptions {
  ModelType type = ModelType::kWord;
  // Exactly one of the two targets.
  std::optional<size_t> merges;      // Learn this many merges.
  std::optional<size_t> vocab_size;  // Stop when the vocabulary has this many ids.
  uint64_t min_frequency = 0;        // Stop when the best pair occurs fewer times.
  std::vector<std::string> special_tokens;  // Reserved ids 0.., never produced from text by the model.
  size_t threads = 1;  // Workers for the merge steps that touch many words (same result for any count).
  // Called every 256 merges and at the end with the number of merges done.
  std::function<void(size_t merges_done)> progress;
};

struct TrainedBpe {
  ModelType type = ModelType::kWord;
  std::vector<std::string> tokens;  // [vocab_size] id -> bytes ("" for special ids and `<unk>`); `</w>` = 0xFF.
  std::vector<BpeModel::MergePair> merges;  // In rank order.
  std::vector<SpecialToken> special_tokens;
  std::optional<TokenId> unk_id;          // Word models.
  std::optional<TokenId> end_of_word_id;  // Word models.
  std::string note;  // Why training stopped before its target, or empty.
};

// Word models: each word must be valid UTF-8 without White_Space (as WhitespacePreTokenizer makes them).
absl::StatusOr<TrainedBpe> TrainBpe(std::vector<WordCount> words, const BpeTrainerOptions& options);

// The tokenizer made of a trained model and the pre-tokenizer and normalizer it was counted with.
absl::StatusOr<std::unique_ptr<Tokenizer>> MakeTrainedTokenizer(TrainedBpe trained,
                                                                std::unique_ptr<PreTokenizer> pre_tokenizer,
                                                                std::unique_ptr<Normalizer> normalizer);

// How the tie-break rule spells a token: `</w>` for the end-of-word byte, raw bytes otherwise.
std::string TrainerSpelling(ModelType type, const std::string& bytes);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_BPE_TRAINER_H_
