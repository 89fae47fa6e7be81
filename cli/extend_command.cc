// `tokvec extend -m MODEL (--add-tokens FILE | --more-merges N FILE... | --vocab-size N FILE...) -o OUT`: a
// tokenizer with more tokens, every existing id where it was, so a model's embedding table only grows.
//
//   tokvec extend -m tokenizer.json --add-tokens domain_words.txt -o extended.json
//   tokvec extend -m tokenizer.json --add-tokens markers.txt --special -o extended.json   # <|tool|>, ...
//   tokvec extend -m gpt2.tiktoken --more-merges 5000 japanese.txt -o gpt2-ja.json
//
// --add-tokens (tokenizer/added_tokens.h: Hugging Face's add_tokens): FILE holds one token per line, with the
// flags of --special, --single-word, --lstrip, --rstrip, --normalized; or a line that is a JSON object as
// tokenizer.json's added_tokens entries ({"content", "special", ...}).
// --more-merges / --vocab-size (tokenizer/trainers/more_merges.h): BPE training continued on FILE... as the
// tokenizer cuts them; byte-level tokenizers.
// OUT ending in `.json` is written as a Hugging Face tokenizer.json (any tokenizer `tokvec convert --to json`
// writes), `.tokvec` as tokvec's model file (plain special tokens only). Everything is checked before OUT is
// written, atomically.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/train_progress.h"
#include "fmt/format.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainers/more_merges.h"

namespace tokvec::cli {
namespace {

struct ExtendOptions {
  std::string model;
  std::string add_tokens;
  std::string output;
  std::string pattern;
  NewToken defaults;
  std::string normalized;  // "", "true" or "false"
  size_t more_merges = 0;  // with has_more_merges
  size_t vocab_size = 0;   // with has_vocab_size
  bool has_more_merges = false;
  bool has_vocab_size = false;
  uint64_t min_frequency = 0;
  size_t threads = 0;  // 0: one per core
  bool split_lines = false;
  std::vector<std::string> files;
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

// Writes `after` to options.output as .json or .tokvec.
absl::Status WriteExtended(const Tokenizer& after, const std::string& output) {
  std::string contents;
  if (EndsWith(output, ".json")) {
    absl::StatusOr<std::string> json = WriteHfTokenizerJson(after);
    if (!json.ok()) {
      return absl::Status(json.status().code(), fmt::format("cannot write tokenizer.json: {}",
                                                            std::string(json.status().message())));
    }
    contents = *std::move(json);
  } else {
    absl::StatusOr<std::string> model = CheckedTokvecModel(after, output);
    if (!model.ok()) {
      return absl::Status(model.status().code(), fmt::format("{} (write OUT.json instead)",
                                                             std::string(model.status().message())));
    }
    contents = *std::move(model);
  }
  return WriteFileAtomically(output, contents);
}

absl::StatusOr<std::unique_ptr<Tokenizer>> CreateExtended(TokenizerSpec spec) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> after = Tokenizer::Create(std::move(spec));
  if (!after.ok()) {
    return absl::Status(after.status().code(), fmt::format("the extended tokenizer is not valid: {}",
                                                           std::string(after.status().message())));
  }
  return after;
}

absl::Status RunAddTokens(const ExtendOptions& options, const Tokenizer& before, TokenizerSpec spec) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.add_tokens));
  TOKVEC_ASSIGN_OR_RETURN(std::vector<NewToken> tokens, ParseNewTokens(text, options.defaults, options.add_tokens));
  if (tokens.empty()) {
    return absl::InvalidArgumentError(fmt::format("'{}' lists no tokens (one per line)", options.add_tokens));
  }
  TOKVEC_ASSIGN_OR_RETURN(const AddedTokensReport report, AddTokens(tokens, before, &spec));
  const bool normalized_added = std::any_of(tokens.begin(), tokens.end(), [&](const NewToken& t) {
    return t.normalized.value_or(!t.special);
  });
  if (normalized_added && spec.normalizer != nullptr && spec.normalizer->IcuSteps().empty()) {
    std::fprintf(stderr,
                 "note: this tokenizer's normalizer (%s) is one whose normalized added tokens tokvec matches in the "
                 "input, where Hugging Face matches their normalization; pass --normalized false (or "
                 "\"normalized\": false) for the same ids in both (docs/tokenizers.md, \"Added tokens\")\n",
                 spec.normalizer->name().c_str());
  }
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> after, CreateExtended(std::move(spec)));
  TOKVEC_RETURN_IF_ERROR(WriteExtended(*after, options.output));
  std::fprintf(stderr,
               "%zu new tokens (ids %zu..%zu), %zu already in the vocabulary (kept their ids), %zu updated, %zu "
               "unchanged; vocabulary %zu -> %zu ids; wrote %s\n",
               report.new_ids, before.vocab_size(), report.vocab_size - 1, report.from_vocab, report.updated,
               report.unchanged, before.vocab_size(), after->vocab_size(), options.output.c_str());
  return absl::OkStatus();
}

absl::Status RunMoreMerges(const ExtendOptions& options, const Tokenizer& before, TokenizerSpec spec) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  TrainProgress progress;
  MoreMergesOptions merge_options{
      .min_frequency = options.min_frequency,
      .threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency()),
      .split_lines = options.split_lines,
      .count_progress = [&](uint64_t bytes) { progress.Bytes(bytes); },
      .merge_progress = [&](size_t done) { progress.Merges(done, options.has_more_merges ? options.more_merges : 0); }};
  if (options.has_more_merges) merge_options.merges = options.more_merges;
  if (options.has_vocab_size) merge_options.vocab_size = options.vocab_size;
  progress.StartMerges();
  absl::StatusOr<MoreMergesReport> report = AddMoreMerges(files, merge_options, before, &spec);
  progress.Done();
  if (!report.ok()) return report.status();
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> after, CreateExtended(std::move(spec)));
  TOKVEC_RETURN_IF_ERROR(WriteExtended(*after, options.output));
  if (!report->note.empty()) std::fprintf(stderr, "note: %s\n", report->note.c_str());
  const std::string ids = report->new_tokens == 0 ? std::string()
                                                  : fmt::format(" (ids {}..{})", report->old_ids,
                                                                report->old_ids + report->new_tokens - 1);
  std::fprintf(stderr, "%zu new merges after the %zu old ones, %zu new tokens%s; vocabulary %zu -> %zu ids; wrote %s\n",
               report->new_merges, report->old_merges, report->new_tokens, ids.c_str(), report->old_ids,
               after->vocab_size(), options.output.c_str());
  return absl::OkStatus();
}

absl::Status RunExtend(ExtendOptions options) {
  if (!EndsWith(options.output, ".json") && !EndsWith(options.output, ".tokvec")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}-o must end in .json (Hugging Face tokenizer.json) or .tokvec (tokvec's model file), not '{}'",
        kUsagePrefix, options.output));
  }
  const bool training = options.has_more_merges || options.has_vocab_size;
  if (options.add_tokens.empty() == !training) {
    return absl::InvalidArgumentError(fmt::format(
        "{}give one of --add-tokens FILE, --more-merges N FILE... and --vocab-size N FILE...", kUsagePrefix));
  }
  if (training && (options.defaults.special || options.defaults.single_word || options.defaults.lstrip ||
                   options.defaults.rstrip || !options.normalized.empty())) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--special, --single-word, --lstrip, --rstrip and --normalized go with --add-tokens", kUsagePrefix));
  }
  if (!training && !options.files.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}text files ('{}') go with --more-merges or --vocab-size, not --add-tokens", kUsagePrefix,
        options.files[0]));
  }
  if (!options.normalized.empty()) {
    if (options.normalized != "true" && options.normalized != "false") {
      return absl::InvalidArgumentError(
          fmt::format("{}--normalized must be true or false, not '{}'", kUsagePrefix, options.normalized));
    }
    options.defaults.normalized = options.normalized == "true";
  }
  const Tokenizer::LoadOptions load{.pattern = options.pattern};
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> before, Tokenizer::Load(options.model, load));
  TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, Tokenizer::LoadSpec(options.model, load));
  if (training) return RunMoreMerges(options, *before, std::move(spec));
  return RunAddTokens(options, *before, std::move(spec));
}

}  // namespace

void RegisterExtendCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<ExtendOptions>();
  CLI::App* sub = app.add_subcommand(
      "extend",
      "Add tokens (Hugging Face's add_tokens) or BPE merges learned on more text to a tokenizer without moving "
      "any id, written to OUT");
  sub->add_option("-m,--model", options->model,
                  "Tokenizer to extend: tokenizer.json, tokvec model, .tiktoken, vocab.json (+merges.txt), or a "
                  "directory holding one")
      ->required();
  sub->add_option("--add-tokens", options->add_tokens,
                  "File of tokens, one per line (or JSON objects as tokenizer.json's added_tokens)");
  auto whole_number = [](std::string& value) {
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    if (digits && value.find_first_not_of('0') != std::string::npos) return std::string();
    return fmt::format("must be a whole number of at least 1, not '{}'", value);
  };
  CLI::Option* more_merges =
      sub->add_option("--more-merges", options->more_merges,
                      "Continue BPE training on FILE...: learn N more merges (byte-level tokenizers)")
          ->check(CLI::Validator(whole_number, "N >= 1"));
  CLI::Option* vocab_size =
      sub->add_option("--vocab-size", options->vocab_size,
                      "Continue BPE training on FILE... until the tokenizer has N ids (old ones included)")
          ->check(CLI::Validator(whole_number, "N >= 1"));
  more_merges->excludes(vocab_size);
  vocab_size->excludes(more_merges);
  sub->add_option("--min-frequency", options->min_frequency,
                  "Training: stop when the most frequent pair occurs fewer than K times")
      ->check(CLI::Validator([](std::string& v) {
        return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos
                   ? std::string()
                   : fmt::format("must be a whole number, not '{}'", v);
      }, "K >= 0"));
  sub->add_option("--threads", options->threads, "Training: threads (default: one per core)")
      ->check(CLI::Validator(whole_number, "N >= 1"));
  sub->add_flag("--split-lines", options->split_lines, "Training: count each line of FILE... on its own");
  sub->add_option("files", options->files, "Training: text files to learn from; none or '-' reads standard input");
  sub->add_option("-o,--output", options->output, "OUT.json (tokenizer.json) or OUT.tokvec")->required();
  sub->add_flag("--special", options->defaults.special, "The tokens are special (skipped by decode's "
                                                         "skip_special_tokens)");
  sub->add_flag("--single-word", options->defaults.single_word, "Match only as a whole word");
  sub->add_flag("--lstrip", options->defaults.lstrip, "A match takes the white space on its left");
  sub->add_flag("--rstrip", options->defaults.rstrip, "A match takes the white space on its right");
  sub->add_option("--normalized", options->normalized,
                  "Match in the normalized text: true or false (default: true unless --special)");
  sub->add_option("--pattern", options->pattern,
                  "Split pattern (gpt2, cl100k, o200k or an ICU regex) for a .tiktoken file of unknown name");
  sub->callback([options, more_merges, vocab_size, action] {
    options->has_more_merges = more_merges->count() > 0;
    options->has_vocab_size = vocab_size->count() > 0;
    *action = [options] { return RunExtend(*options); };
  });
}

}  // namespace tokvec::cli
