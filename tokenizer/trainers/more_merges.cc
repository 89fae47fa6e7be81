#include "tokenizer/trainers/more_merges.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/models/bpe/recover_merges.h"
#include "tokenizer/trainers/bpe_trainer.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

absl::StatusOr<MoreMergesReport> AddMoreMerges(const std::vector<std::string>& paths,
                                               const MoreMergesOptions& options, const Tokenizer& before,
                                               TokenizerSpec* spec) {
  if (spec->type != ModelType::kByte) {
    return absl::UnimplementedError(fmt::format(
        "--more-merges continues byte-level BPE (GPT-2, tiktoken, Llama-3-style tokenizer.json); this tokenizer "
        "is a {} model",
        ModelTypeName(spec->type)));
  }
  if (spec->affixes.has_value()) {
    return absl::UnimplementedError(
        "--more-merges does not continue a model with a continuing_subword_prefix or end_of_word_suffix");
  }
  if (options.merges.has_value() == options.vocab_size.has_value()) {
    return absl::InvalidArgumentError("give exactly one of a number of new merges and a vocabulary size");
  }
  if (options.merges && *options.merges == 0) return absl::InvalidArgumentError("the number of new merges is 0");
  MoreMergesReport report;
  report.old_ids = before.vocab_size();
  for (const SpecialToken& special : spec->special_tokens) {
    report.old_ids = std::max<size_t>(report.old_ids, special.id + size_t{1});
  }
  // 1. The old model as a merge list (a tiktoken model's recovered: what its tokenizer.json holds).
  const BpeModel& old_bpe = spec->bpe;
  std::vector<BpeModel::MergePair> old_merges =
      old_bpe.rule() == BpeModel::Rule::kRanks ? RecoverMerges(old_bpe) : old_bpe.merges();
  report.old_merges = old_merges.size();
  TOKVEC_ASSIGN_OR_RETURN(BpeModel old_list, BpeModel::FromMerges(old_bpe.tokens(), old_merges));
  // 2. The pieces of the new text, cut as the tokenizer cuts them.
  WordCounterOptions counter{.pre_tokenizer = spec->pre_tokenizer.get(),
                             .normalizer = spec->normalizer.get(),
                             .threads = std::max<size_t>(1, options.threads),
                             .split_lines = options.split_lines,
                             .progress = options.count_progress};
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWords(paths, counter));
  if (words.empty()) return absl::InvalidArgumentError("the new text holds no pieces to learn merges from");
  // 3. Every old id keeps its bytes; each piece starts as the old model encodes it.
  std::vector<std::string> start_tokens(report.old_ids);
  for (TokenId id = 0; id < old_list.size() && id < start_tokens.size(); ++id) start_tokens[id] = old_list.token(id);
  // An added or special token's text counts as a token while training: no new merge may spell it (the trainer
  // leaves pairs that spell an existing token alone), so the written vocabulary never holds one text under two
  // ids. It is no BPE token afterwards, as before.
  std::vector<TokenId> added_ids;
  for (const SpecialToken& special : spec->special_tokens) {
    if (special.id < start_tokens.size() && start_tokens[special.id].empty() && !special.text.empty()) {
      start_tokens[special.id] = special.text;
      added_ids.push_back(special.id);
    }
  }
  const ByteIds byte_ids = ByteIdsOf(old_list);
  const bool ignore_merges = spec->ignore_merges;
  std::vector<BpeModel::Symbol> symbols;
  auto split = [&](std::string_view word, std::vector<TokenId>* ids) -> absl::Status {
    if (ignore_merges) {
      if (std::optional<TokenId> whole = old_list.Find(word)) {
        ids->push_back(*whole);
        return absl::OkStatus();
      }
    }
    symbols.clear();
    for (size_t i = 0; i < word.size(); ++i) {
      const std::optional<TokenId> id = byte_ids[static_cast<unsigned char>(word[i])];
      if (!id) {
        return absl::InvalidArgumentError(fmt::format(
            "the tokenizer has no token for byte 0x{:02X} (in the piece '{}'); byte-level BPE needs all 256",
            static_cast<unsigned char>(word[i]), word));
      }
      symbols.push_back({*id, i});
    }
    old_list.Merge(symbols);
    for (const BpeModel::Symbol& s : symbols) ids->push_back(s.id);
    return absl::OkStatus();
  };
  BpeTrainerOptions trainer{.type = ModelType::kByte,
                            .merges = options.merges,
                            .vocab_size = options.vocab_size,
                            .min_frequency = options.min_frequency,
                            .threads = std::max<size_t>(1, options.threads),
                            .progress = options.merge_progress,
                            .start_tokens = &start_tokens,
                            .start_split = split};
  TOKVEC_ASSIGN_OR_RETURN(TrainedBpe trained, TrainBpe(std::move(words), trainer));
  for (TokenId id : added_ids) trained.tokens[id].clear();
  // 4. The extended model: old merges, then the new ones.
  report.new_merges = trained.merges.size();
  report.new_tokens = trained.tokens.size() - report.old_ids;
  report.note = trained.note;
  old_merges.insert(old_merges.end(), trained.merges.begin(), trained.merges.end());
  TOKVEC_ASSIGN_OR_RETURN(spec->bpe, BpeModel::FromMerges(std::move(trained.tokens), std::move(old_merges)));
  return report;
}

}  // namespace tokvec
