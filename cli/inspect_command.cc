// tokvec inspect: what a tokenizer is made of.
//
//   tokvec inspect model.tokvec            # summary: format, type, sizes, settings, special tokens
//   tokvec inspect model.tokvec --merges   # the merges in rank order, one `LEFT RIGHT` per line
//
// Merges are spelled as `tokvec encode --tokens` spells tokens: word models with `</w>` (`er </w>`), byte models
// in GPT-2's byte-to-unicode spelling, exactly like a merges.txt line (`Ġ t`).
#include <memory>
#include <string>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::cli {
namespace {

struct InspectCommandOptions {
  std::string model;
  std::string pattern;
  bool merges = false;
};

// The summary's last lines: how many special tokens, then each as "  id text".
void AppendSpecialTokens(const TokenizerSpec& spec, std::string* out) {
  *out += fmt::format("special_tokens: {}\n", spec.special_tokens.size());
  for (const SpecialToken& special : spec.special_tokens) *out += fmt::format("  {} {}\n", special.id, special.text);
}

// What the tokenizer says of itself around what its model says (TokenizerModel::Describe).
std::string Summary(const Tokenizer& tokenizer, const std::string& path) {
  const TokenizerSpec& spec = tokenizer.spec();
  const ModelSummary model = tokenizer.model().Describe();
  std::string out;
  out += fmt::format("model: {}\n", path);
  out += fmt::format("type: {}\n", model.kind);
  out += fmt::format("vocab_size: {}\n", tokenizer.vocab_size());
  out += model.fields;
  out += fmt::format("pre_tokenizer: {}\n", spec.pre_tokenizer->name());
  out += fmt::format("normalizer: {}\n", spec.normalizer ? spec.normalizer->name() : "none");
  if (tokenizer.model().SpelledTokens()) {  // Decoded by a chain (tokens of bytes decode as they are).
    std::string decoder = "none (spellings joined by spaces)";
    if (spec.token_decoder != nullptr) {
      decoder = spec.token_decoder->name();
    } else if (spec.decoder) {
      decoder = fmt::format("wordpiece (prefix {}, cleanup {})", spec.decoder->prefix, spec.decoder->cleanup);
    }
    out += fmt::format("decoder: {}\n", decoder);
  }
  // Hugging Face's truncation and padding, applied by `tokvec encode` (only lines for files that have them).
  if (spec.truncation) {
    out += fmt::format("truncation: max_length {}, {}, stride {}, {}\n", spec.truncation->max_length,
                       TruncationStrategyName(spec.truncation->strategy), spec.truncation->stride,
                       TruncationSideName(spec.truncation->direction));
  }
  if (spec.padding) {
    const PaddingParams& padding = *spec.padding;
    out += fmt::format("padding: {}{}, {}, pad {} (id {}, type id {})\n",
                       padding.fixed_length ? fmt::format("Fixed {}", *padding.fixed_length) : "BatchLongest",
                       padding.pad_to_multiple_of ? fmt::format(" to a multiple of {}", *padding.pad_to_multiple_of)
                                                  : "",
                       padding.direction == PaddingSide::kLeft ? "Left" : "Right", padding.pad_token, padding.pad_id,
                       padding.pad_type_id);
  }
  out += model.ids;
  AppendSpecialTokens(spec, &out);
  return out;
}

absl::Status RunInspect(const InspectCommandOptions& options) {
  Tokenizer::LoadOptions load;
  load.pattern = options.pattern;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.model, load));
  if (!options.merges) return WriteAll(stdout, Summary(*tokenizer, options.model));
  if (tokenizer->model().bpe() == nullptr) {
    return absl::FailedPreconditionError(fmt::format("'{}' is a {} model: it has a vocabulary and no merges",
                                                     options.model, tokenizer->model().utf8_name()));
  }
  const BpeModel& bpe = *tokenizer->model().bpe();
  if (bpe.rule() == BpeModel::Rule::kRanks) {
    return absl::FailedPreconditionError(fmt::format(
        "'{}' holds tiktoken ranks, not a merge list; `tokvec convert -m {} -o OUT` writes OUT.json with merges",
        options.model, options.model));
  }
  std::string out;
  out.reserve(bpe.merges().size() * 12);
  for (const BpeModel::MergePair& merge : bpe.merges()) {
    out += tokenizer->TokenSpelling(merge.left);
    out += ' ';
    out += tokenizer->TokenSpelling(merge.right);
    out += '\n';
  }
  return WriteAll(stdout, out);
}

}  // namespace

void RegisterInspectCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<InspectCommandOptions>();
  CLI::App* sub = app.add_subcommand("inspect", "Show a tokenizer's summary or its merges");
  sub->add_option("model", options->model, "Tokenizer: tokvec model, .tiktoken, vocab.json, tokenizer.json or a directory")
      ->required();
  sub->add_flag("--merges", options->merges, "Print the merges in rank order, one `LEFT RIGHT` per line");
  sub->add_option("--pattern", options->pattern, "Split pattern for a .tiktoken file of unknown name");
  sub->callback([options, action] { *action = [options] { return RunInspect(*options); }; });
}

}  // namespace tokvec::cli
