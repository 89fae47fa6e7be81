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

std::string WordPieceSummary(const Tokenizer& tokenizer, const std::string& path) {
  const TokenizerSpec& spec = tokenizer.spec();
  const WordPieceModel& model = spec.wordpiece;
  std::string out;
  out += fmt::format("model: {}\n", path);
  out += "type: wordpiece (greedy longest match, continuation prefix)\n";
  out += fmt::format("vocab_size: {}\n", tokenizer.vocab_size());
  out += fmt::format("unk_token: {} (id {})\n", model.options().unk_token, model.unk_id());
  out += fmt::format("continuing_subword_prefix: {}\n", model.options().continuing_subword_prefix);
  out += fmt::format("max_input_chars_per_word: {}\n", model.options().max_input_chars_per_word);
  out += fmt::format("pre_tokenizer: {}\n", spec.pre_tokenizer->name());
  out += fmt::format("normalizer: {}\n", spec.normalizer ? spec.normalizer->name() : "none");
  out += fmt::format("decoder: {}\n", spec.decoder ? fmt::format("wordpiece (prefix {}, cleanup {})", spec.decoder->prefix,
                                                                  spec.decoder->cleanup)
                                                    : "none (spellings joined by spaces)");
  AppendSpecialTokens(spec, &out);
  return out;
}

std::string CharSummary(const Tokenizer& tokenizer, const std::string& path) {
  const TokenizerSpec& spec = tokenizer.spec();
  std::string out;
  out += fmt::format("model: {}\n", path);
  out += "type: char (BPE over code points, SentencePiece-style)\n";
  out += fmt::format("vocab_size: {}\n", tokenizer.vocab_size());
  out += fmt::format("merges: {}\n", spec.bpe.merges().size());
  out += fmt::format("unk_token: {}\n", spec.char_bpe.unk_id ? fmt::format("{} (id {})", tokenizer.TokenSpelling(*spec.char_bpe.unk_id),
                                                                           *spec.char_bpe.unk_id)
                                                             : "none (unknown characters are dropped)");
  out += fmt::format("fuse_unk: {}\n", spec.char_bpe.fuse_unk);
  out += fmt::format("byte_fallback: {}\n", spec.char_bpe.byte_fallback);
  out += fmt::format("ignore_merges: {}\n", spec.ignore_merges);
  out += fmt::format("pre_tokenizer: {}\n", spec.pre_tokenizer->name());
  out += fmt::format("normalizer: {}\n", spec.normalizer ? spec.normalizer->name() : "none");
  out += fmt::format("decoder: {}\n", spec.token_decoder->name());
  AppendSpecialTokens(spec, &out);
  return out;
}

std::string UnigramSummary(const Tokenizer& tokenizer, const std::string& path) {
  const TokenizerSpec& spec = tokenizer.spec();
  const UnigramModel& model = spec.unigram;
  std::string out;
  out += fmt::format("model: {}\n", path);
  out += "type: unigram (best-scoring segmentation, SentencePiece)\n";
  out += fmt::format("vocab_size: {}\n", tokenizer.vocab_size());
  out += fmt::format("unk_token: {}\n", model.unk_id() ? fmt::format("{} (id {})", model.token(*model.unk_id()),
                                                                      *model.unk_id())
                                                        : std::string("none"));
  out += fmt::format("byte_fallback: {}\n", model.byte_fallback());
  out += fmt::format("pre_tokenizer: {}\n", spec.pre_tokenizer->name());
  out += fmt::format("normalizer: {}\n", spec.normalizer ? spec.normalizer->name() : "none");
  out += fmt::format("decoder: {}\n", spec.token_decoder->name());
  AppendSpecialTokens(spec, &out);
  return out;
}

std::string Summary(const Tokenizer& tokenizer, const std::string& path) {
  if (tokenizer.type() == ModelType::kWordPiece) return WordPieceSummary(tokenizer, path);
  if (tokenizer.type() == ModelType::kChar) return CharSummary(tokenizer, path);
  if (tokenizer.type() == ModelType::kUnigram) return UnigramSummary(tokenizer, path);
  const TokenizerSpec& spec = tokenizer.spec();
  const BpeModel& bpe = spec.bpe;
  const bool word = spec.type == ModelType::kWord;
  std::string out;
  out += fmt::format("model: {}\n", path);
  out += fmt::format("type: {}\n", word ? "word (classic BPE, </w> ends each word)" : "byte (byte-level BPE)");
  out += fmt::format("vocab_size: {}\n", tokenizer.vocab_size());
  out += fmt::format("merge_rule: {}\n", bpe.rule() == BpeModel::Rule::kMergeList
                                             ? "merge list (rank = position in the list)"
                                             : "ranks (tiktoken: a pair merges if its concatenation is a token)");
  out += fmt::format("merges: {}\n", bpe.merges().size());
  size_t alphabet = 0;
  for (TokenId id = 0; id < bpe.size(); ++id) {
    const std::string& bytes = bpe.token(id);
    if (bytes.empty() || (word && spec.end_of_word_id && id == *spec.end_of_word_id)) continue;
    const bool single = word ? bytes.size() <= 4 && bpe.Find(bytes) && [&] {
      unsigned char lead = static_cast<unsigned char>(bytes[0]);
      size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      return len == bytes.size();
    }() : bytes.size() == 1;
    if (single) ++alphabet;
  }
  out += fmt::format("alphabet: {} {}\n", alphabet, word ? "code points" : "bytes");
  if (!spec.unreachable_tokens.empty()) {  // Spelled outside the byte alphabet: no input reaches them.
    out += fmt::format("unreachable_tokens: {}\n", spec.unreachable_tokens.size());
  }
  out += fmt::format("pre_tokenizer: {}\n", spec.pre_tokenizer->name());
  out += fmt::format("normalizer: {}\n", spec.normalizer ? spec.normalizer->name() : "none");
  if (word) {
    out += fmt::format("unk_id: {}\n", *spec.unk_id);
    out += fmt::format("end_of_word_id: {}\n", *spec.end_of_word_id);
  }
  AppendSpecialTokens(spec, &out);
  return out;
}

absl::Status RunInspect(const InspectCommandOptions& options) {
  Tokenizer::LoadOptions load;
  load.pattern = options.pattern;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.model, load));
  if (!options.merges) return WriteAll(stdout, Summary(*tokenizer, options.model));
  if (tokenizer->type() == ModelType::kWordPiece || tokenizer->type() == ModelType::kUnigram) {
    return absl::FailedPreconditionError(fmt::format("'{}' is a {} model: it has a vocabulary and no merges",
                                                     options.model,
                                                     tokenizer->type() == ModelType::kUnigram ? "Unigram" : "WordPiece"));
  }
  const BpeModel& bpe = tokenizer->bpe();
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
