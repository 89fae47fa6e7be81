// tokvec train: learn a BPE model from text files (or standard input) and write tokvec's model file.
//
//   tokvec train --type word --merges 4 -o seed.tokvec corpus.txt
//   tokvec train --type byte --pattern gpt2 --vocab-size 30000 --special '<|endoftext|>' --threads 2 -o m.tokvec *.txt
//   tokvec train --from-counts --type byte --vocab-size 30000 -o m.tokvec counts.tsv   # counts from `tokvec count`
//   tokvec train --type byte --split-lines --vocab-size 30000 -o m.tokvec *.txt   # count each line on its own
//
// The pieces counted are the ones `tokvec encode` cuts from each file as a whole (so a merge can join a line end
// to the indentation after it, `Ċ ĠĠĠ`); --split-lines counts each line on its own as Hugging Face's trainer
// does, and so does a split pattern given as a regex, which cannot be cut safely (tokenizer/trainers/word_counter.h).
// A corpus without text (every file empty) is an error naming the files.
// Word models cut words at Unicode White_Space; byte models cut pieces with a split pattern (default gpt2). The
// training rules and the id layout are in tokenizer/trainers/bpe_trainer.h; the file format in
// tokenizer/formats/tokvec_model_format.cc. --type spbpe, wordpiece and unigram write a tokenizer.json
// (spbpe_trainer.h, wordpiece_trainer.h, unigram_trainer.h):
//   tokvec train --type wordpiece --vocab-size 30000 [--criterion likelihood|ratio|bpe] [--cased] -o vocab.json *.txt
//   tokvec train --type unigram --vocab-size 8000 [--byte-fallback] [--split-digits] -o unigram.json *.txt
// Invalid UTF-8 in a word corpus is an error naming the file and byte offset (train a byte model for such
// data). Progress (bytes read, merges done and their rate, or the Unigram EM round) goes to stderr when stderr is
// a terminal; a note there says when training stopped before its target.
//
// Under `mpirun -np P` (built with -DTOKVEC_MPI=ON), each rank counts share `rank` of P of the files, the counts
// meet by piece and are summed on the piece's owner (distributed/world.h), the ranks learn the merges together,
// each over the pieces it summed (bpe_trainer.h), and rank 0 writes: the same bytes as one process.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/train_progress.h"
#include "distributed/world.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/trainers/count_file.h"
#include "tokenizer/trainers/spbpe_trainer.h"
#include "tokenizer/trainers/unigram_trainer.h"
#include "tokenizer/trainers/tokenizer_trainer.h"
#include "tokenizer/trainers/wordpiece_trainer.h"

namespace tokvec::cli {
namespace {

struct TrainCommandOptions {
  std::string type = "word";
  std::string pattern;
  std::string normalize = "none";
  std::string output;
  size_t merges = 0;
  size_t vocab_size = 0;
  bool has_merges = false;
  bool has_vocab_size = false;
  uint64_t min_frequency = 0;
  std::vector<std::string> special_tokens;
  size_t threads = 0;  // 0: one per core.
  bool from_counts = false;  // files are count files (tokenizer/trainers/count_file.h)
  double character_coverage = 0.9995;  // spbpe
  bool has_coverage = false;
  bool split_lines = false;  // count each line on its own (word_counter.h)
  std::string criterion = "likelihood";  // wordpiece
  bool has_criterion = false;
  size_t limit_alphabet = 0;  // wordpiece
  bool cased = false;         // wordpiece
  size_t seed_size = 1000000;    // unigram
  double shrinking_factor = 0.75;  // unigram
  size_t max_piece_length = 16;  // spbpe, unigram
  bool byte_fallback = false;    // unigram
  bool split_digits = false;     // spbpe, unigram
  std::vector<std::string> user_defined;  // unigram
  bool has_unigram_option = false;
  bool has_max_piece_length = false;
  std::vector<std::string> files;
};

// Training on nothing would write a model without merges: say which files were empty instead.
absl::Status EmptyCorpusError(const std::vector<std::string>& files, bool from_counts, bool word) {
  std::string names;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i > 0) names += i + 1 == files.size() ? " and " : ", ";
    names += files[i] == "-" ? "standard input" : fmt::format("'{}'", files[i]);
  }
  if (from_counts) {
    return absl::InvalidArgumentError(fmt::format("no pieces to learn from: {} {} no counts", names,
                                                  files.size() == 1 ? "holds" : "hold"));
  }
  return absl::InvalidArgumentError(fmt::format(
      "no text to learn from: {} {} empty{}; give files that hold text", names, files.size() == 1 ? "is" : "are",
      word ? " or only white space" : ""));
}

absl::Status RequireJsonOutput(const std::string& out, std::string_view type) {
  if (out.size() < 5 || out.substr(out.size() - 5) != ".json") {
    return absl::InvalidArgumentError(fmt::format(
        "{}--type {} writes a Hugging Face tokenizer.json: -o must end in .json, not '{}'", kUsagePrefix, type, out));
  }
  return absl::OkStatus();
}

// Trains with `train` (progress on stderr through the TrainProgress it is given) and writes the tokenizer.json it
// returns to `out` atomically; an unwritable `out` fails before the work.
absl::Status TrainToJson(const std::string& out,
                         const std::function<absl::StatusOr<std::string>(TrainProgress* progress)>& train) {
  TOKVEC_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(out));
  TrainProgress progress;
  progress.StartMerges();
  absl::StatusOr<std::string> json = train(&progress);
  progress.Done();
  if (!json.ok()) return json.status();
  TOKVEC_RETURN_IF_ERROR(file.Write(*json));
  return file.Commit();
}

// Counts words with `count` (share `share` of `shares` of the files; progress on `progress` when it is not null),
// trains on them with `train` and writes the tokenizer.json it returns to `out` atomically (an unwritable `out`
// fails before the work). Under mpirun each rank counts share `rank` of P of the files, the counts are summed by
// word and gathered on rank 0, which trains alone (on its threads) and writes the file a single process writes;
// the other ranks are done once their counts are sent. Returns whether this process wrote the file.
using CountWordsFn = std::function<absl::StatusOr<std::vector<WordCount>>(uint64_t share, uint64_t shares,
                                                                          TrainProgress* progress)>;
using TrainOnWordsFn =
    std::function<absl::StatusOr<std::string>(std::vector<WordCount> words, TrainProgress* progress)>;
absl::StatusOr<bool> CountAndTrainToJson(const std::string& out, const std::vector<std::string>& files,
                                         const CountWordsFn& count, const TrainOnWordsFn& train) {
  const distributed::World world = distributed::JoinWorld();  // one process, unless started by mpirun
  if (world.size <= 1) {
    TOKVEC_RETURN_IF_ERROR(TrainToJson(out, [&](TrainProgress* progress) -> absl::StatusOr<std::string> {
      TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, count(0, 1, progress));
      return train(std::move(words), progress);
    }));
    return true;
  }
  if (std::find(files.begin(), files.end(), "-") != files.end()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}under mpirun, train reads text files (each rank counts its share); standard input runs in one process",
        kUsagePrefix));
  }
  absl::Status writable = world.rank == 0 ? AtomicFile::Create(out).status() : absl::OkStatus();
  if (!distributed::AllOk(world, writable.ok())) {
    return world.rank == 0 ? writable : absl::AbortedError("rank 0 cannot write the model");
  }
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  Clock::time_point start = Clock::now();
  absl::StatusOr<std::vector<WordCount>> counted =
      count(static_cast<uint64_t>(world.rank), static_cast<uint64_t>(world.size), nullptr);
  const double count_seconds = seconds(start);
  if (!distributed::AllOk(world, counted.ok())) {
    return counted.ok() ? absl::AbortedError("another rank could not count its share (its error is above)")
                        : counted.status();
  }
  start = Clock::now();
  distributed::ExchangeStats stats;
  TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words,
                          distributed::SumCountsOnRoot(*std::move(counted), world, &stats));
  std::fprintf(stderr,
               "rank %d of %d: counted its share in %.2f s; summed %llu unique words, sent %.1f MB, %.2f s%s\n",
               world.rank, world.size, count_seconds, static_cast<unsigned long long>(stats.pieces_summed),
               static_cast<double>(stats.bytes_sent) / 1e6, seconds(start),
               world.rank == 0 ? fmt::format("; gathered all {} here and trains", words.size()).c_str() : "");
  if (world.rank != 0) return false;
  TOKVEC_RETURN_IF_ERROR(
      TrainToJson(out, [&](TrainProgress* progress) { return train(std::move(words), progress); }));
  return true;
}

size_t TrainingThreads(const TrainCommandOptions& options) {
  return options.threads > 0 ? options.threads : std::max<size_t>(1, std::thread::hardware_concurrency());
}

// --type spbpe: SentencePiece-style BPE written as tokenizer.json (tokenizer/trainers/spbpe_trainer.h).
absl::Status RunTrainSpBpe(const TrainCommandOptions& options) {
  if (!options.has_vocab_size || options.has_merges) {
    return absl::InvalidArgumentError(fmt::format("{}--type spbpe takes --vocab-size N (not --merges)", kUsagePrefix));
  }
  if (!options.pattern.empty() || options.normalize != "none" || !options.special_tokens.empty() ||
      options.from_counts || options.split_lines) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--type spbpe splits at white space with ▁ and has its own special tokens: --pattern, --normalize, "
        "--special, --from-counts and --split-lines do not apply",
        kUsagePrefix));
  }
  const std::string& out = options.output;
  TOKVEC_RETURN_IF_ERROR(RequireJsonOutput(out, "spbpe"));
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  const SpBpeOptions trainer{.vocab_size = options.vocab_size,
                             .character_coverage = options.character_coverage,
                             .min_frequency = options.min_frequency,
                             .split_digits = options.split_digits,
                             .max_piece_length = options.max_piece_length,
                             .threads = TrainingThreads(options)};
  SpBpeReport report;
  TOKVEC_ASSIGN_OR_RETURN(
      const bool wrote,
      CountAndTrainToJson(
          out, files,
          [&](uint64_t share, uint64_t shares, TrainProgress* progress) {
            SpBpeOptions counting = trainer;
            if (progress != nullptr) counting.count_progress = [progress](uint64_t bytes) { progress->Bytes(bytes); };
            return CountSpBpeWords(files, counting, share, shares);
          },
          [&](std::vector<WordCount> words, TrainProgress* progress) {
            SpBpeOptions training = trainer;
            training.merge_progress = [progress](size_t done) { progress->Merges(done, 0); };
            return TrainSpBpeOnWords(std::move(words), training, &report);
          }));
  if (!wrote) return absl::OkStatus();
  if (!report.note.empty()) std::fprintf(stderr, "note: %s\n", report.note.c_str());
  std::fprintf(stderr, "%zu characters (%zu more left to byte fallback), %zu merges; wrote %s\n", report.alphabet,
               report.dropped_characters, report.merges, out.c_str());
  return absl::OkStatus();
}

// --type wordpiece: a BERT-style WordPiece vocabulary written as tokenizer.json (wordpiece_trainer.h).
absl::Status RunTrainWordPiece(const TrainCommandOptions& options) {
  if (!options.has_vocab_size || options.has_merges) {
    return absl::InvalidArgumentError(
        fmt::format("{}--type wordpiece takes --vocab-size N (not --merges)", kUsagePrefix));
  }
  if (!options.pattern.empty() || options.normalize != "none" || options.from_counts || options.has_coverage) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--type wordpiece cuts words with BERT's normalizer and pre-tokenizer (--cased keeps case): --pattern, "
        "--normalize, --from-counts and --character-coverage do not apply (--limit-alphabet bounds the alphabet)",
        kUsagePrefix));
  }
  TOKVEC_RETURN_IF_ERROR(RequireJsonOutput(options.output, "wordpiece"));
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  WordPieceReport report;
  TOKVEC_RETURN_IF_ERROR(TrainToJson(options.output, [&](TrainProgress* progress) {
    return TrainWordPiece(
        files,
        {.vocab_size = options.vocab_size,
         .criterion = options.criterion == "bpe"     ? WordPieceCriterion::kBpe
                      : options.criterion == "ratio" ? WordPieceCriterion::kRatio
                                                     : WordPieceCriterion::kLikelihood,
         .min_frequency = options.min_frequency,
         .limit_alphabet = options.limit_alphabet,
         .lowercase = !options.cased,
         .extra_special_tokens = options.special_tokens,
         .threads = TrainingThreads(options),
         .split_lines = options.split_lines,
         .count_progress = [&](uint64_t bytes) { progress->Bytes(bytes); },
         .merge_progress = [&](size_t done) { progress->Merges(done, 0); }},
        &report);
  }));
  if (!report.note.empty()) std::fprintf(stderr, "note: %s\n", report.note.c_str());
  std::fprintf(stderr,
               "%zu characters (%zu with a ## form), %zu merged pieces, %zu distinct words left out; wrote %s\n",
               report.alphabet, report.continuing_forms, report.merges, report.dropped_words, options.output.c_str());
  return absl::OkStatus();
}

// --type unigram: a SentencePiece-style Unigram vocabulary written as tokenizer.json (unigram_trainer.h).
absl::Status RunTrainUnigram(const TrainCommandOptions& options) {
  if (!options.has_vocab_size || options.has_merges) {
    return absl::InvalidArgumentError(
        fmt::format("{}--type unigram takes --vocab-size N (not --merges)", kUsagePrefix));
  }
  if (!options.pattern.empty() || options.normalize != "none" || options.from_counts || options.min_frequency > 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--type unigram cuts words with NFKC and Metaspace (▁) and prunes by likelihood: --pattern, --normalize, "
        "--from-counts and --min-frequency do not apply",
        kUsagePrefix));
  }
  if (options.has_criterion || options.limit_alphabet > 0 || options.cased) {
    return absl::InvalidArgumentError(
        fmt::format("{}--criterion, --limit-alphabet and --cased apply to --type wordpiece", kUsagePrefix));
  }
  if (!(options.shrinking_factor > 0.0 && options.shrinking_factor < 1.0)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--shrinking-factor must be above 0 and below 1, not {}", kUsagePrefix, options.shrinking_factor));
  }
  if (!(options.character_coverage > 0.0)) {
    return absl::InvalidArgumentError(fmt::format("{}--character-coverage must be above 0", kUsagePrefix));
  }
  TOKVEC_RETURN_IF_ERROR(RequireJsonOutput(options.output, "unigram"));
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  const UnigramTrainerOptions trainer{.vocab_size = options.vocab_size,
                                      .character_coverage = options.character_coverage,
                                      .seed_size = options.seed_size,
                                      .shrinking_factor = options.shrinking_factor,
                                      .max_piece_length = options.max_piece_length,
                                      .byte_fallback = options.byte_fallback,
                                      .split_digits = options.split_digits,
                                      .extra_special_tokens = options.special_tokens,
                                      .user_defined_symbols = options.user_defined,
                                      .threads = TrainingThreads(options)};
  UnigramReport report;
  TOKVEC_ASSIGN_OR_RETURN(
      const bool wrote,
      CountAndTrainToJson(
          options.output, files,
          [&](uint64_t share, uint64_t shares, TrainProgress* progress) {
            UnigramTrainerOptions counting = trainer;
            if (progress != nullptr) counting.count_progress = [progress](uint64_t bytes) { progress->Bytes(bytes); };
            return CountUnigramWords(files, counting, share, shares);
          },
          [&](std::vector<WordCount> words, TrainProgress* progress) {
            UnigramTrainerOptions training = trainer;
            training.round_progress = [progress](const UnigramRound& round) {
              progress->Stage(fmt::format("EM round {}: {} pieces, log-likelihood {:.3f} per word", round.round,
                                          round.pieces, round.log_likelihood));
            };
            return TrainUnigramOnWords(std::move(words), training, &report);
          }));
  if (!wrote) return absl::OkStatus();
  if (!report.note.empty()) std::fprintf(stderr, "note: %s\n", report.note.c_str());
  std::fprintf(stderr,
               "%zu distinct words, %zu characters (%zu more left %s), %zu seed pieces, %zu EM rounds; wrote %s\n",
               report.words, report.alphabet, report.dropped_characters,
               options.byte_fallback ? "to byte fallback" : "unknown", report.seeds, report.rounds,
               options.output.c_str());
  return absl::OkStatus();
}

absl::Status RunTrain(const TrainCommandOptions& options) {
  if (options.type == "unigram") return RunTrainUnigram(options);
  if (options.has_unigram_option) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--seed-size, --shrinking-factor, --byte-fallback and --user-defined apply to --type unigram",
        kUsagePrefix));
  }
  if (options.split_digits && options.type != "spbpe") {
    return absl::InvalidArgumentError(
        fmt::format("{}--split-digits applies to --type spbpe and unigram", kUsagePrefix));
  }
  if (options.has_max_piece_length && options.type != "spbpe") {
    return absl::InvalidArgumentError(
        fmt::format("{}--max-piece-length applies to --type spbpe and unigram", kUsagePrefix));
  }
  if (options.type == "wordpiece") return RunTrainWordPiece(options);
  if (options.has_criterion || options.limit_alphabet > 0 || options.cased) {
    return absl::InvalidArgumentError(
        fmt::format("{}--criterion, --limit-alphabet and --cased apply to --type wordpiece", kUsagePrefix));
  }
  if (options.type == "spbpe") return RunTrainSpBpe(options);
  if (options.has_coverage) {
    return absl::InvalidArgumentError(
        fmt::format("{}--character-coverage applies to --type spbpe and unigram", kUsagePrefix));
  }
  // 1. The pieces to count: whitespace words or split-pattern pieces, after the optional normalizer.
  const bool word = options.type == "word";
  if (word && !options.pattern.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--pattern applies to byte models only; word models always split at whitespace (use --type byte)",
        kUsagePrefix));
  }
  if (options.has_merges == options.has_vocab_size) {
    return absl::InvalidArgumentError(
        fmt::format("{}give exactly one of --merges N and --vocab-size N", kUsagePrefix));
  }
  TrainProgress progress;
  TokenizerTrainerOptions trainer_options;
  trainer_options.type = word ? ModelType::kWord : ModelType::kByte;
  trainer_options.pattern = options.pattern;
  trainer_options.normalize = options.normalize;
  if (options.has_merges) trainer_options.merges = options.merges;
  if (options.has_vocab_size) trainer_options.vocab_size = options.vocab_size;
  trainer_options.min_frequency = options.min_frequency;
  trainer_options.special_tokens = options.special_tokens;
  trainer_options.threads =
      options.threads > 0 ? options.threads : std::max<size_t>(1, std::thread::hardware_concurrency());
  trainer_options.split_lines = options.split_lines;
  trainer_options.count_progress = [&](uint64_t bytes) { progress.Bytes(bytes); };
  trainer_options.merge_progress = [&](size_t done) {
    progress.Merges(done, options.has_merges ? options.merges : 0);
  };
  TOKVEC_ASSIGN_OR_RETURN(TokenizerTrainer trainer, TokenizerTrainer::Create(std::move(trainer_options)));
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  if (!options.from_counts && !options.split_lines && trainer.CountsLines()) {
    std::fprintf(stderr, "note: the split pattern is a regex, which cannot be cut safely: each line is counted "
                         "on its own (as --split-lines)\n");
  }
  const distributed::World world = distributed::JoinWorld();  // one process, unless started by mpirun
  if (world.size > 1 && (options.from_counts || std::find(files.begin(), files.end(), "-") != files.end())) {
    return absl::InvalidArgumentError(fmt::format(
        "{}under mpirun, train reads text files (each rank counts its share); --from-counts and standard input "
        "run in one process",
        kUsagePrefix));
  }
  // Open the output first (rank 0 writes it), so an unwritable path fails before the work.
  absl::StatusOr<AtomicFile> out = world.rank == 0 ? AtomicFile::Create(options.output)
                                                   : absl::StatusOr<AtomicFile>(absl::CancelledError());
  if (!distributed::AllOk(world, world.rank != 0 || out.ok())) {
    return world.rank == 0 ? out.status() : absl::AbortedError("rank 0 cannot write the model");
  }

  // 2. Count the unique pieces in one streaming pass, or read counts made before (tokvec count, Spark, ...).
  //    Under mpirun: each rank counts its share of the files, the counts are summed across ranks by piece, and
  //    each rank trains on the pieces it summed, with the others (distributed/world.h); the model is the one a
  //    single process writes.
  // Under mpirun the ranks learn the merges together (bpe_trainer.h), each on the pieces it summed.
  distributed::MergeExchangeStats merge_stats;
  std::unique_ptr<MergeExchange> exchange;
  if (world.size > 1) {
    // Each phase is timed on every rank (its line on stderr), so that a slow rank or exchange shows.
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point from) {
      return std::chrono::duration<double>(Clock::now() - from).count();
    };
    Clock::time_point start = Clock::now();
    const absl::Status counted = trainer.CountFileShare(files, static_cast<uint64_t>(world.rank),
                                                        static_cast<uint64_t>(world.size));
    const double count_seconds = seconds(start);
    start = Clock::now();
    if (!distributed::AllOk(world, counted.ok())) {
      return counted.ok() ? absl::AbortedError("another rank could not count its share (its error is above)")
                          : counted;
    }
    const double wait_seconds = seconds(start);
    start = Clock::now();
    distributed::ExchangeStats stats;
    TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> mine,
                            distributed::SumCountsByOwner(std::move(trainer).TakeCounts(), world, &stats));
    std::fprintf(stderr,
                 "rank %d of %d: counted its share in %.2f s (then waited %.2f s for the others); summed %llu unique "
                 "pieces, sent %.1f MB in %d round(s), %.2f s\n",
                 world.rank, world.size, count_seconds, wait_seconds,
                 static_cast<unsigned long long>(stats.pieces_summed), static_cast<double>(stats.bytes_sent) / 1e6,
                 stats.rounds, seconds(start));
    trainer.AddCounts(std::move(mine));  // the pieces this rank summed: it trains on them with the others
    exchange = distributed::MakeMergeExchange(world, &merge_stats);
  } else if (options.from_counts) {
    TOKVEC_ASSIGN_OR_RETURN(PieceCounts counts, ReadCountFiles(files, word));
    const CountFileHeader expected = trainer.CountHeader();
    if (counts.header && !(*counts.header == expected)) {
      return absl::InvalidArgumentError(fmt::format(
          "the count files were counted with {}, but this training cuts pieces with {}; give the same --type, "
          "--pattern, --normalize and --split-lines as `tokvec count` had",
          counts.header->ToString(), expected.ToString()));
    }
    trainer.AddCounts(std::move(counts.pieces));
  } else {
    TOKVEC_RETURN_IF_ERROR(trainer.CountFiles(files));
  }
  // Under mpirun a rank may own no piece; the corpus is empty when every rank's share is.
  if (world.size > 1 ? distributed::AllOk(world, trainer.CountedNothing()) : trainer.CountedNothing()) {
    return world.rank == 0 ? EmptyCorpusError(files, options.from_counts, word)
                           : absl::AbortedError("the corpus is empty (rank 0 says more)");
  }

  // 3. Learn the merges (tokenizer/trainers/tokenizer_trainer.h).
  progress.StartMerges();
  std::string note;
  const auto train_start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = std::move(trainer).Train(&note, exchange.get());
  progress.Done();
  if (exchange != nullptr) {
    std::fprintf(stderr,
                 "rank %d of %d: trained in %.2f s (%.2f s of it exchanging, %.1f MB sent): %llu merges together%s\n",
                 world.rank, world.size,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - train_start).count(),
                 merge_stats.seconds, static_cast<double>(merge_stats.bytes_sent) / 1e6,
                 static_cast<unsigned long long>(merge_stats.merges_together),
                 merge_stats.handed_over ? (world.rank == 0 ? ", then the rest alone" : ", then its words to rank 0")
                                         : "");
  }
  if (world.rank != 0) {  // every rank learned the same merges; rank 0 reports and writes
    return tokenizer.ok() ? absl::OkStatus() : absl::AbortedError("training stopped (rank 0 says why)");
  }
  if (!tokenizer.ok()) return absl::Status(tokenizer.status().code(), std::string(tokenizer.status().message()));
  if (!note.empty()) std::fprintf(stderr, "note: %s\n", note.c_str());

  // 4. Write the model file atomically.
  TOKVEC_RETURN_IF_ERROR(out->Write(WriteTokvecModel(**tokenizer)));
  TOKVEC_RETURN_IF_ERROR(out->Commit());
  return absl::OkStatus();
}

}  // namespace

void RegisterTrainCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<TrainCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "train", "Learn a tokenizer from text: BPE (word, byte-level, SentencePiece), WordPiece or Unigram");
  sub->add_option("--type", options->type,
                  "word (classic BPE, words at whitespace, </w>), byte (byte-level), spbpe (SentencePiece-style "
                  "BPE over code points with ▁ and byte fallback), wordpiece (BERT-style ## pieces) or unigram "
                  "(SentencePiece's Unigram language model, EM); spbpe, wordpiece and unigram write a tokenizer.json")
      ->check(CLI::IsMember({"word", "byte", "spbpe", "wordpiece", "unigram"}))
      ->capture_default_str();
  sub->add_option("--pattern", options->pattern,
                  "Byte models: split pattern, a preset (gpt2, r50k, p50k, cl100k, o200k) or an ICU regex "
                  "(default gpt2)");
  sub->add_option("--normalize", options->normalize,
                  "Unicode normalization stored in the model: none, nfc, nfkc, lowercase, or a combination "
                  "such as nfkc+lowercase")
      ->capture_default_str();
  sub->add_option("-o,--output", options->output,
                  "Model file to write (tokvec format; spbpe, wordpiece, unigram: tokenizer.json)")
      ->required();
  CLI::Option* coverage = sub->add_option("--character-coverage", options->character_coverage,
                                          "spbpe, unigram: share of character occurrences the alphabet covers "
                                          "(the rest falls back to bytes, or <unk>)")
                              ->capture_default_str()
                              ->check(CLI::Range(0.0, 1.0));
  // Counts are unsigned: without these checks CLI11 reads "-2" as 2^64 - 2 (and --threads -2 then aborts).
  auto whole_number = [](bool zero_ok) {
    return CLI::Validator(
        [zero_ok](std::string& value) {
          const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
          if (digits && (zero_ok || value.find_first_not_of('0') != std::string::npos)) return std::string();
          return fmt::format("must be a whole number of at least {}, not '{}'", zero_ok ? 0 : 1, value);
        },
        zero_ok ? "N >= 0" : "N >= 1");
  };
  CLI::Option* merges =
      sub->add_option("--merges", options->merges, "Number of merges to learn")->check(whole_number(false));
  CLI::Option* vocab_size = sub->add_option(
      "--vocab-size", options->vocab_size,
      "Vocabulary size to reach: special tokens + <unk> and </w> (word) + alphabet + merged (unigram: learned) "
      "tokens")
      ->check(whole_number(false));
  merges->excludes(vocab_size);
  vocab_size->excludes(merges);
  sub->add_option("--min-frequency", options->min_frequency,
                  "Stop when the most frequent pair occurs fewer than K times")
      ->capture_default_str()
      ->check(whole_number(true));
  sub->add_option("--special", options->special_tokens,
                  "Special token (repeatable): reserved ids 0.. in the order given (spbpe, wordpiece, unigram: after "
                  "their own), never produced from text unless allowed at encode")
      ->allow_extra_args(false);  // One token per --special, so FILE... after it stay files.
  sub->add_option("--threads", options->threads,
                  "Threads for counting, big merge steps and Unigram's EM (default: one per core)")
      ->check(whole_number(false));
  sub->add_flag("--from-counts", options->from_counts,
                "FILE... are count files (tokvec count, or Spark / Dask; format in docs/scale.md): train from them");
  sub->add_flag("--split-lines", options->split_lines,
                "Count each line on its own (Hugging Face's trainer) instead of each file as one text as encode "
                "cuts it; a regex --pattern is always counted by lines (with --from-counts: the counts' header "
                "must say split=lines)");
  CLI::Option* criterion =
      sub->add_option("--criterion", options->criterion,
                      "wordpiece: likelihood (the merge that most raises the corpus' unigram log-likelihood), ratio "
                      "(count(xy) / (count(x) count(y))) or bpe (the most frequent pair, as Hugging Face's "
                      "WordPieceTrainer)")
          ->check(CLI::IsMember({"likelihood", "ratio", "bpe"}))
          ->capture_default_str();
  sub->add_option("--limit-alphabet", options->limit_alphabet,
                  "wordpiece: keep only the N most frequent characters (words with others become [UNK])")
      ->check(whole_number(false));
  sub->add_flag("--cased", options->cased, "wordpiece: keep case and accents (BertNormalizer lowercase false)");
  std::vector<CLI::Option*> unigram_options = {
      sub->add_option("--seed-size", options->seed_size,
                      "unigram: pieces EM starts from (the most frequent repeated substrings)")
          ->capture_default_str()
          ->check(whole_number(false)),
      sub->add_option("--shrinking-factor", options->shrinking_factor,
                      "unigram: share of pieces each pruning round keeps, in (0, 1)")
          ->capture_default_str()
          ->check(CLI::Range(0.0, 1.0)),
      sub->add_flag("--byte-fallback", options->byte_fallback,
                    "unigram: add the 256 <0xNN> tokens; unknown characters encode as their UTF-8 bytes"),
      sub->add_option("--user-defined", options->user_defined,
                      "unigram (repeatable): a symbol kept whole wherever it occurs (SentencePiece's "
                      "user_defined_symbols): an added token after the special tokens, not special")
          ->allow_extra_args(false)};
  sub->add_flag("--split-digits", options->split_digits, "spbpe, unigram: every digit a piece of its own");
  CLI::Option* max_piece_length =
      sub->add_option("--max-piece-length", options->max_piece_length,
                      "spbpe, unigram: longest piece, in characters (▁ counts), as SentencePiece's")
          ->capture_default_str()
          ->check(CLI::Range(1, 64));
  sub->add_option("files", options->files, "Text files to learn from; none or '-' reads standard input");
  sub->callback([options, merges, vocab_size, coverage, criterion, unigram_options, max_piece_length, action] {
    options->has_max_piece_length = max_piece_length->count() > 0;
    options->has_unigram_option = false;
    for (const CLI::Option* option : unigram_options) options->has_unigram_option |= option->count() > 0;
    options->has_coverage = coverage->count() > 0;
    options->has_criterion = criterion->count() > 0;
    options->has_merges = merges->count() > 0;
    options->has_vocab_size = vocab_size->count() > 0;
    *action = [options] { return RunTrain(*options); };
  });
}

}  // namespace tokvec::cli
