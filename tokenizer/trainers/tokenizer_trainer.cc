#include "tokenizer/trainers/tokenizer_trainer.h"

#include <utility>

#include "base/status_macros.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"

namespace tokvec {

absl::StatusOr<TokenizerTrainer> TokenizerTrainer::Create(TokenizerTrainerOptions options) {
  const bool word = options.type == ModelType::kWord;
  if (word && !options.pattern.empty()) {
    return absl::InvalidArgumentError(
        "a split pattern applies to byte models only; word models always split at whitespace");
  }
  if (options.merges.has_value() == options.vocab_size.has_value()) {
    return absl::InvalidArgumentError("give exactly one of a number of merges and a vocabulary size");
  }
  TokenizerTrainer trainer;
  if (word) {
    trainer.pre_tokenizer_ = std::make_unique<WhitespacePreTokenizer>();
  } else {
    TOKVEC_ASSIGN_OR_RETURN(trainer.pre_tokenizer_,
                            MakeSplitPreTokenizer(options.pattern.empty() ? "gpt2" : options.pattern));
  }
  TOKVEC_ASSIGN_OR_RETURN(trainer.normalizer_, MakeNormalizer(options.normalize));
  options.threads = std::max<size_t>(1, options.threads);
  trainer.options_ = std::move(options);
  return trainer;
}

WordCounterOptions TokenizerTrainer::CounterOptions() const {
  WordCounterOptions counter;
  counter.pre_tokenizer = pre_tokenizer_.get();
  counter.normalizer = normalizer_.get();
  counter.require_utf8 = options_.type == ModelType::kWord;
  counter.threads = options_.threads;
  counter.split_lines = options_.split_lines;
  counter.progress = options_.count_progress;
  return counter;
}

void TokenizerTrainer::Add(std::vector<WordCount> words) {
  if (!counted_) {
    words_ = std::move(words);
    counted_ = true;
    return;
  }
  if (totals_.empty()) {
    for (WordCount& w : words_) totals_[std::move(w.word)] += w.count;
    words_.clear();
  }
  for (WordCount& w : words) totals_[std::move(w.word)] += w.count;
}

absl::Status TokenizerTrainer::CountFiles(const std::vector<std::string>& paths) {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWords(paths, CounterOptions()));
  Add(std::move(words));
  return absl::OkStatus();
}

absl::Status TokenizerTrainer::CountFileShare(const std::vector<std::string>& paths, uint64_t share,
                                              uint64_t shares) {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWordsInShare(paths, share, shares, CounterOptions()));
  Add(std::move(words));
  return absl::OkStatus();
}

absl::Status TokenizerTrainer::CountText(std::string_view text, const std::string& name) {
  WordCounterOptions counter = CounterOptions();
  counter.threads = 1;  // Usually short texts: no workers to start for each.
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWordsInText(text, counter, name));
  Add(std::move(words));
  return absl::OkStatus();
}

CountFileHeader TokenizerTrainer::CountHeader() const {
  return {.type = options_.type == ModelType::kWord ? "word" : "byte",
          .pre_tokenizer = pre_tokenizer_->name(),
          .normalizer = normalizer_ ? normalizer_->name() : "none",
          .split_lines = options_.type == ModelType::kByte && CountsLines()};  // words count alike either way
}

std::vector<WordCount> TokenizerTrainer::TakeCounts() && {
  if (!totals_.empty()) {
    words_.clear();
    words_.reserve(totals_.size());
    for (auto& [word, count] : totals_) words_.push_back({word, count});
    totals_.clear();
  }
  std::vector<WordCount> out = std::move(words_);
  words_.clear();
  counted_ = false;  // empty again: AddCounts may follow (the MPI mode gives rank 0 everyone's sums)
  return out;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> TokenizerTrainer::Train(std::string* note,
                                                                    MergeExchange* exchange) && {
  words_ = std::move(*this).TakeCounts();
  BpeTrainerOptions trainer;
  trainer.type = options_.type;
  trainer.merges = options_.merges;
  trainer.vocab_size = options_.vocab_size;
  trainer.min_frequency = options_.min_frequency;
  trainer.special_tokens = options_.special_tokens;
  trainer.threads = options_.threads;
  trainer.progress = options_.merge_progress;
  trainer.exchange = exchange;
  TOKVEC_ASSIGN_OR_RETURN(TrainedBpe trained, TrainBpe(std::move(words_), trainer));
  if (note != nullptr) *note = trained.note;
  return MakeTrainedTokenizer(std::move(trained), std::move(pre_tokenizer_), std::move(normalizer_));
}

}  // namespace tokvec
