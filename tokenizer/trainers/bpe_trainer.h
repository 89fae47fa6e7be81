// Learning BPE merges from word counts (Sennrich et al. 2016, https://arxiv.org/abs/1508.07909), for three model
// types: word models (symbols are code points plus `</w>` after each word), byte models (symbols are bytes) and
// code-point models (ModelType::kChar: code points only, as SentencePiece's BPE; spbpe_trainer.h).
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
//
// Spread over processes (`mpirun tokvec train`, options.exchange): each process trains on the words it holds (its
// share of the pieces, each piece on one process), keeping their pair counts and pair -> words index; the root
// sums every process's pair counts and keeps the heap. Each step the root picks the pair, every process merges it
// in its own words and sends the root its count changes. Once the steps have become small (each touches few
// words) and many are left, the per-step messages would cost more than the work they share: the others hand their
// words over and the root finishes alone. The merges are the ones a single process holding every word learns: the
// pick depends only on the summed counts and the tie-break rule, never on the heap's history.
#ifndef TOKVEC_TOKENIZER_TRAINERS_BPE_TRAINER_H_
#define TOKVEC_TOKENIZER_TRAINERS_BPE_TRAINER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

// What the root of a spread training tells every process to do next.
struct MergeStep {
  enum Kind : uint64_t { kStop = 0, kMerge = 1, kHandOver = 2 };
  Kind kind = kStop;
  uint64_t pair = 0;  // kMerge: left id << 32 | right id
};

// The collective steps of a training spread over processes (distributed/world.h makes one over MPI). Every call
// is made by every process, in the same order.
class MergeExchange {
 public:
  virtual ~MergeExchange() = default;
  // The process that sums the counts and picks the merges.
  virtual bool IsRoot() const = 0;
  // True on every process when `ok` is true on every process.
  virtual bool AllOk(bool ok) = 0;
  // The union of every process's `symbols`, sorted by bytes, on every process.
  virtual absl::StatusOr<std::vector<std::string>> UnionOfSymbols(const std::vector<std::string>& symbols) = 0;
  // The root gets every process's `mine` (its own included), one string per process; the others get none.
  virtual absl::StatusOr<std::vector<std::string>> GatherOnRoot(const std::string& mine) = 0;
  // The root's `step` on every process (the others' argument is ignored).
  virtual absl::StatusOr<MergeStep> BroadcastStep(MergeStep step) = 0;
};

struct BpeTrainerOptions {
  ModelType type = ModelType::kWord;
  // Exactly one of the two targets.
  std::optional<size_t> merges;      // Learn this many merges.
  std::optional<size_t> vocab_size;  // Stop when the vocabulary has this many ids.
  uint64_t min_frequency = 0;        // Stop when the best pair occurs fewer times.
  // A pair whose merged token would hold more UTF-8 characters (code points) is never merged; 0: no limit.
  size_t max_token_chars = 0;
  std::vector<std::string> special_tokens;  // Reserved ids 0.., never produced from text by the model.
  size_t threads = 1;  // Workers for the merge steps that touch many words (same result for any count).
  // Called every 256 merges and at the end with the number of merges done (on the root only, when spread).
  std::function<void(size_t merges_done)> progress;
  // Null for one process. Otherwise this process's words are its share, and the root's result is the model (the
  // others' may stop short of it); the exchange must outlive the training.
  MergeExchange* exchange = nullptr;
  // Continuing an existing byte model (tokvec extend --more-merges, more_merges.h) instead of starting from the
  // 256 bytes: ids 0..start_tokens.size() - 1 keep their bytes ("" for an id that is no BPE token: special and
  // added tokens, gaps), and `start_split` cuts each word into those tokens (the existing model's merges
  // applied). New tokens get the ids after them; `merges` counts new merges, `vocab_size` every id; a pair that
  // spells an existing token is never merged. Not with an exchange or special tokens.
  const std::vector<std::string>* start_tokens = nullptr;
  std::function<absl::Status(std::string_view word, std::vector<TokenId>* ids)> start_split;
};

struct TrainedBpe {
  ModelType type = ModelType::kWord;
  std::vector<std::string> tokens;  // [vocab_size] id -> bytes ("" for special ids and `<unk>`); `</w>` = 0xFF.
  std::vector<BpeModel::MergePair> merges;  // In rank order (continuing a model: only the new ones).
  std::vector<SpecialToken> special_tokens;
  std::optional<TokenId> unk_id;          // Word models.
  std::optional<TokenId> end_of_word_id;  // Word models.
  std::string note;  // Why training stopped before its target, or empty.
};

// Word and code-point models: each word must be valid UTF-8 (word models: without White_Space, as
// WhitespacePreTokenizer makes them).
absl::StatusOr<TrainedBpe> TrainBpe(std::vector<WordCount> words, const BpeTrainerOptions& options);

// The tokenizer made of a trained model and the pre-tokenizer and normalizer it was counted with.
absl::StatusOr<std::unique_ptr<Tokenizer>> MakeTrainedTokenizer(TrainedBpe trained,
                                                                std::unique_ptr<PreTokenizer> pre_tokenizer,
                                                                std::unique_ptr<Normalizer> normalizer);

// How the tie-break rule spells a token: `</w>` for the end-of-word byte, raw bytes otherwise.
std::string TrainerSpelling(ModelType type, const std::string& bytes);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_BPE_TRAINER_H_
