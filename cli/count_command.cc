// tokvec count: the unique pieces of a corpus with their counts, the first half of `tokvec train` on its own.
//
//   tokvec count --type byte --pattern gpt2 -o part-0.tsv shard-0.txt      # on each machine, its own shard
//   tokvec count --merge -o all.tsv part-*.tsv                              # add the parts up
//   tokvec count --shard 2/8 -o part-2.tsv corpus/*.txt                      # share 2 of 8 of the same files
//   tokvec train --from-counts --type byte --vocab-size 30000 -o m.tokvec all.tsv
//
// The pieces are cut exactly as `tokvec train` cuts them (the same --type, --pattern, --normalize and
// --split-lines), so training from the counts gives the bytes training from the text gives. The format (tokenizer/trainers/count_file.h)
// is simple enough for Spark or Dask to write: docs/scale.md has both.
#include <thread>

#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/shard_option.h"
#include "fmt/format.h"
#include "tokenizer/trainers/count_file.h"
#include "tokenizer/trainers/tokenizer_trainer.h"

namespace tokvec::cli {
namespace {

struct CountCommandOptions {
  std::string type = "word";
  std::string pattern;
  std::string normalize = "none";
  size_t threads = 0;  // 0: one per core
  bool split_lines = false;  // count each line on its own (word_counter.h)
  bool merge = false;
  std::string shard;  // "i/P": count only share i of P of the files
  std::string output;
  std::vector<std::string> files;
};

absl::Status RunCount(const CountCommandOptions& options) {
  if (options.merge) {
    if (options.files.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}--merge needs the count files to add up", kUsagePrefix));
    }
    // Word pieces are checked as such when the files' header says type=word.
    TOKVEC_ASSIGN_OR_RETURN(PieceCounts counts, ReadCountFiles(options.files, /*word=*/false));
    return WriteCountFile(options.output, counts.header, std::move(counts.pieces));
  }
  const bool word = options.type == "word";
  if (word && !options.pattern.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--pattern applies to byte models only; word models always split at whitespace (use --type byte)",
        kUsagePrefix));
  }
  TokenizerTrainerOptions trainer_options;
  trainer_options.type = word ? ModelType::kWord : ModelType::kByte;
  trainer_options.pattern = options.pattern;
  trainer_options.normalize = options.normalize;
  trainer_options.merges = 1;  // unused: counting only
  trainer_options.split_lines = options.split_lines;
  trainer_options.threads =
      options.threads > 0 ? options.threads : std::max<size_t>(1, std::thread::hardware_concurrency());
  TOKVEC_ASSIGN_OR_RETURN(TokenizerTrainer trainer, TokenizerTrainer::Create(std::move(trainer_options)));
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  if (!options.shard.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(Shard shard, ParseShard(options.shard));
    TOKVEC_RETURN_IF_ERROR(trainer.CountFileShare(files, static_cast<uint64_t>(shard.index),
                                                  static_cast<uint64_t>(shard.count)));
  } else {
    TOKVEC_RETURN_IF_ERROR(trainer.CountFiles(files));
  }
  const CountFileHeader header = trainer.CountHeader();
  return WriteCountFile(options.output, header, std::move(trainer).TakeCounts());
}

}  // namespace

void RegisterCountCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<CountCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "count", "Count the pieces of a corpus as `train` would (or add count files up) into a count file");
  CLI::Option* type =
      sub->add_option("--type", options->type, "word (pieces are whitespace words) or byte (split-pattern pieces)")
          ->check(CLI::IsMember({"word", "byte"}))
          ->capture_default_str();
  CLI::Option* pattern = sub->add_option(
      "--pattern", options->pattern,
      "Byte models: split pattern, a preset (gpt2, r50k, p50k, cl100k, o200k) or an ICU regex (default gpt2)");
  CLI::Option* normalize =
      sub->add_option("--normalize", options->normalize,
                      "Unicode normalization before cutting: none, nfc, nfkc, lowercase, or e.g. nfkc+lowercase")
          ->capture_default_str();
  sub->add_option("--threads", options->threads, "Counting threads (default: one per core; same counts for any)")
      ->check(CLI::PositiveNumber);
  CLI::Option* shard = sub->add_option(
      "--shard", options->shard,
      "i/P: count only share i of P of the files (byte ranges cut where the text may be cut, line starts with "
      "--split-lines; the P count files add up to the whole, with count --merge)");
  CLI::Option* split_lines = sub->add_flag(
      "--split-lines", options->split_lines,
      "Count each line on its own (Hugging Face's trainer; train --split-lines) instead of each file as one "
      "text as encode cuts it; a regex --pattern is always counted by lines");
  CLI::Option* merge = sub->add_flag("--merge", options->merge,
                                     "FILE... are count files: add them up (their headers must agree)");
  merge->excludes(type)->excludes(pattern)->excludes(normalize)->excludes(shard)->excludes(split_lines);
  sub->add_option("-o,--output", options->output, "Count file to write (piece<TAB>count, sorted)")->required();
  sub->add_option("files", options->files, "Text files (none or '-': standard input), or count files with --merge");
  sub->callback([options, action] { *action = [options] { return RunCount(*options); }; });
}

}  // namespace tokvec::cli
