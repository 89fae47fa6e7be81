// A whole training run, from text to a Tokenizer: the pre-tokenizer and normalizer pieces are counted with, the
// word counts, the merges (bpe_trainer.h) and the tokenizer made of them. `tokvec train` and the Python
// module's train / train_from_iterator both run it, so the same options give the same model.
//
//   TOKVEC_ASSIGN_OR_RETURN(TokenizerTrainer trainer,
//                           TokenizerTrainer::Create({.type = ModelType::kByte, .vocab_size = 1000}));
//   TOKVEC_RETURN_IF_ERROR(trainer.CountFiles({"a.txt", "b.txt"}));   // and/or trainer.CountText(...)
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, trainer.Train());
//
// Counting is split from training so that text can come from files (streamed, as `tokvec train`) or from
// memory a piece at a time (an iterator of strings); the counts of several calls add up exactly, and the
// trainer does not depend on their order.
#ifndef TOKVEC_TOKENIZER_TRAINERS_TOKENIZER_TRAINER_H_
#define TOKVEC_TOKENIZER_TRAINERS_TOKENIZER_TRAINER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/count_file.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

struct TokenizerTrainerOptions {
  ModelType type = ModelType::kWord;
  std::string pattern;              // Byte models: split preset or ICU regex ("" = gpt2); word models: "" only.
  std::string normalize = "none";   // MakeNormalizer's names (nfc, nfkc, lowercase, nfkc+lowercase).
  std::optional<size_t> merges;     // Exactly one of the two targets (bpe_trainer.h).
  std::optional<size_t> vocab_size;
  uint64_t min_frequency = 0;
  std::vector<std::string> special_tokens;
  size_t threads = 1;  // Counting and merge workers (same result for any count).
  bool split_lines = false;  // Count each line of a text on its own, not the whole text (word_counter.h).
  std::function<void(uint64_t bytes_read)> count_progress;  // From CountFiles, after each chunk.
  std::function<void(size_t merges_done)> merge_progress;   // From Train, every 256 merges.
};

class TokenizerTrainer {
 public:
  // Checks the options (InvalidArgument naming the option: a pattern for a word model, neither or both
  // targets) and builds the pre-tokenizer and normalizer.
  static absl::StatusOr<TokenizerTrainer> Create(TokenizerTrainerOptions options);

  // Adds the pieces of every file ("-" is standard input); errors name the file and byte offset.
  absl::Status CountFiles(const std::vector<std::string>& paths);
  // Adds the pieces of share `share` of `shares` of the files (word_counter.h CountWordsInShare).
  absl::Status CountFileShare(const std::vector<std::string>& paths, uint64_t share, uint64_t shares);
  // Adds the pieces of one text held in memory (cut as files are), named `name` in messages.
  absl::Status CountText(std::string_view text, const std::string& name);

  // Adds counts made elsewhere (a count file, count_file.h); they add up with the counted ones.
  void AddCounts(std::vector<WordCount> pieces) { Add(std::move(pieces)); }
  // How this trainer cuts pieces, as a count file's header names it (its type, pre-tokenizer, normalizer and
  // whether it counts lines).
  CountFileHeader CountHeader() const;
  // True when nothing has been counted (or added): an empty corpus.
  bool CountedNothing() const { return words_.empty() && totals_.empty(); }
  // True when texts are counted line by line: split_lines, or a split regex that cannot be cut (word_counter.h).
  bool CountsLines() const { return options_.split_lines || !pre_tokenizer_->FindsCuts(); }
  // Everything counted, each piece once (in no particular order), without training (`tokvec count`); the
  // trainer is left with nothing counted.
  std::vector<WordCount> TakeCounts() &&;

  // Learns the merges from everything counted. `note` (may be null) says why training stopped early, if it did.
  // With an exchange (mpirun, distributed/world.h) this process's counts are its share of the pieces, and every
  // process of the exchange learns the same merges (bpe_trainer.h).
  absl::StatusOr<std::unique_ptr<Tokenizer>> Train(std::string* note = nullptr,
                                                   MergeExchange* exchange = nullptr) &&;

 private:
  TokenizerTrainer() = default;
  WordCounterOptions CounterOptions() const;
  void Add(std::vector<WordCount> words);

  TokenizerTrainerOptions options_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Normalizer> normalizer_;
  // The counts of the first call are kept as they come (one CountFiles: nothing to add up); later calls add
  // into `totals_`.
  std::vector<WordCount> words_;
  absl::flat_hash_map<std::string, uint64_t> totals_;
  bool counted_ = false;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_TOKENIZER_TRAINER_H_
