// tokvec encode: text to token ids.
//
//   echo "low lower newest" | tokvec encode -m seed.tokvec            # 7 2 7 13 ... (ids, one line)
//   tokvec encode -m seed.tokvec --tokens corpus.txt                   # low </w> low er</w> ...
//   tokvec encode -m cl100k_base.tiktoken --format json text.txt      # {"ids": [...], "tokens": [...], "offsets": ...}
//   tokvec encode -m gpt2.tiktoken --lines --threads 2 big.txt         # one output line per input line
//   tokvec encode -m gpt2.tiktoken --allow-special='<|endoftext|>' in.txt
//   tokvec encode -m tokenizer.json --lines --format npz --max-length 128 -o batch.npz lines.txt   # padded arrays
//
// Input is FILE or standard input. By default the whole input is one text (its final newline included) and the
// output is one line. With --lines each line is encoded on its own, without its line end ("\n", or "\r\n":
// a '\r' right before '\n' is part of the line end; a last line without a newline counts too), giving one
// output line per input line. Offsets (json) are byte offsets into the text encoded: the whole input, or with
// --lines the line.
//
// Both modes stream: input is read in chunks of about 1 MB, cut at line ends for --lines, and for a whole text
// where Tokenizer::FindCut allows (before a '\n' that follows an ASCII letter or digit: the ids of the parts
// are the ids of the whole, see tokenizer.h); chunks are encoded by --threads persistent workers (each keeps its
// piece cache warm) and written in input order, so the output is the same for any thread count. A whole text
// that cannot be cut (a custom split regex), and --format json without --lines, are encoded in one piece.
//
// Formats: ids (space-separated), tokens (spellings: `er</w>` for word models, GPT-2's byte-to-unicode spelling
// for byte models, special tokens as their text), json {"ids", "tokens", "offsets": [[begin, end], ...]}
// (one object per line with --lines). Text that spells a special token is ordinary text unless
// --allow-special (all) or --allow-special=LIST (comma-separated) is given; a tokenizer.json's non-special added
// tokens are always matched. --add-special-tokens adds the tokens of a tokenizer.json's post_processor around
// each text (the whole input, or each line with --lines), with offsets [0, 0].
//
// Truncation and padding: a tokenizer.json's "truncation" and "padding" sections apply by default, as Hugging Face
// applies them (the first text cut is noted on stderr); --no-truncation / --no-padding turn them off, --max-length,
// --truncation-side, --stride, --truncation-strategy, --padding, --pad-to-multiple-of, --padding-side, --pad-id,
// --pad-type-id set them on any tokenizer. Such texts go through EncodeSequences (tokenizer/sequence_encoding.h),
// one at a time (a whole input in one piece); json then adds type_ids, attention_mask, special_tokens_mask,
// word_ids and overflowing windows (--overflowing: windows as lines of their own).
//
// --format npz (RunNpz): every line (or --pairs pair) encoded as Hugging Face's encode_batch does and padded to one
// length (BatchLongest unless the file or --padding says otherwise), written as a .npz of [rows, length] int64
// arrays input_ids, attention_mask, token_type_ids, plus --arrays offsets,word_ids,special_tokens_mask; with
// --overflowing, each line's windows are rows after it and overflow_to_sample_mapping gives each row's line.
//
// Sharded (--shard i/P with --lines, or each rank under mpirun): the lines n with n mod P = i of one or more
// input files go to -o DIR/part-iiiii.ids (.tokens, .jsonl) with a record (distributed/line_parts.h); a re-run
// skips a complete part; `tokvec encode --gather DIR [-o FILE]` joins the parts into the lines one process writes.
//   tokvec encode -m gpt2.tiktoken --lines --shard 1/4 -o parts/ big.txt && tokvec encode --gather parts/ -o all.ids
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "base/file_io.h"
#include "base/npz.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/encode_chunks.h"
#include "cli/shard_option.h"
#include "distributed/line_parts.h"
#include "distributed/world.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/batch/chunked_encoder.h"
#include "tokenizer/batch/encoding_text.h"
#include "tokenizer/models/bpe/piece_cache.h"
#include "tokenizer/processors/length_json.h"
#include "tokenizer/sequence_encoding.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::cli {
namespace {

// The value of `--allow-special` given without a list (CLI11 flags take a value only as `--flag=VALUE`, so the
// FILE after a bare `--allow-special` is never taken as its list).
constexpr char kAllowAll[] = "ALL";

struct EncodeCommandOptions {
  std::string model;
  std::string pattern;
  std::string format = "ids";
  bool tokens = false;
  bool readable = false;
  bool lines = false;
  std::string allow_special;
  bool add_special_tokens = false;  // the tokenizer.json post-processor's tokens around each text
  bool pairs = false;               // each line is text A, a tab, text B (implies lines)
  int threads = 1;
  std::string input = "-";
  std::vector<std::string> inputs;  // as given (several only with --shard / mpirun)
  std::string shard;                // "i/P": only lines n with n mod P = i, into -o DIR as a part file
  std::string gather;               // a folder of parts to join (to -o, or standard output)
  std::string output;               // the parts' folder (sharded), or the gathered file
  // Truncation and padding (tokenizer/sequence_encoding.h): the tokenizer.json's own unless turned off or set here.
  bool no_truncation = false;
  bool no_padding = false;
  std::optional<size_t> max_length;
  std::string truncation_side;      // "left" | "right"
  std::optional<size_t> stride;
  std::string truncation_strategy;  // "longest_first" | "only_first" | "only_second"
  std::string padding;              // "longest" | N (fixed)
  std::optional<size_t> pad_to_multiple_of;
  std::string padding_side;         // "left" | "right"
  std::optional<TokenId> pad_id;
  std::optional<uint32_t> pad_type_id;
  bool overflowing = false;         // windows as lines of their own (npz: as rows of their own)
  std::string arrays;               // npz: extra arrays, comma-separated (offsets, word_ids, special_tokens_mask)
};

// The truncation and padding of a run: the tokenizer's (its tokenizer.json sections), changed by the options.
// Usage errors: an option that changes what is off or absent, --no-truncation with --max-length.
absl::StatusOr<SequenceLengths> LengthsOf(const Tokenizer& tokenizer, const EncodeCommandOptions& options) {
  SequenceLengths lengths = SequenceLengths::Of(tokenizer);
  if (options.no_truncation) {
    if (options.max_length) {
      return absl::InvalidArgumentError(fmt::format("{}--no-truncation and --max-length contradict", kUsagePrefix));
    }
    lengths.truncation.reset();
  }
  if (options.no_padding) {
    if (!options.padding.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}--no-padding and --padding contradict", kUsagePrefix));
    }
    lengths.padding.reset();
  }
  if (options.max_length) {
    if (!lengths.truncation) lengths.truncation = TruncationParams{};
    lengths.truncation->max_length = *options.max_length;
  }
  const bool truncation_option =
      !options.truncation_side.empty() || options.stride || !options.truncation_strategy.empty();
  if (truncation_option && !lengths.truncation) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--truncation-side, --stride and --truncation-strategy change truncation: give --max-length N (this "
        "tokenizer has none{})",
        kUsagePrefix, options.no_truncation ? ", and --no-truncation was given" : ""));
  }
  if (!options.truncation_side.empty()) {
    lengths.truncation->direction = options.truncation_side == "left" ? TruncationSide::kLeft : TruncationSide::kRight;
  }
  if (options.stride) lengths.truncation->stride = *options.stride;
  if (options.truncation_strategy == "only_first") lengths.truncation->strategy = TruncationStrategy::kOnlyFirst;
  if (options.truncation_strategy == "only_second") lengths.truncation->strategy = TruncationStrategy::kOnlySecond;
  if (options.truncation_strategy == "longest_first") lengths.truncation->strategy = TruncationStrategy::kLongestFirst;
  if (!options.padding.empty()) {
    if (!lengths.padding) lengths.padding = PaddingParams{};
    if (options.padding == "longest") {
      lengths.padding->fixed_length.reset();
    } else {
      lengths.padding->fixed_length = std::stoull(options.padding);  // checked by the option's validator
    }
  }
  const bool padding_option =
      options.pad_to_multiple_of || !options.padding_side.empty() || options.pad_id || options.pad_type_id;
  if (padding_option && !lengths.padding) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--pad-to-multiple-of, --padding-side, --pad-id and --pad-type-id change padding: give --padding "
        "longest|N (this tokenizer has none{})",
        kUsagePrefix, options.no_padding ? ", and --no-padding was given" : ""));
  }
  if (options.pad_to_multiple_of) lengths.padding->pad_to_multiple_of = *options.pad_to_multiple_of;
  if (!options.padding_side.empty()) {
    lengths.padding->direction = options.padding_side == "left" ? PaddingSide::kLeft : PaddingSide::kRight;
  }
  if (options.pad_id) {
    if (*options.pad_id >= tokenizer.vocab_size()) {
      return absl::InvalidArgumentError(fmt::format("--pad-id {} is not an id of this tokenizer (its ids are 0 to {})",
                                                    *options.pad_id, tokenizer.vocab_size() - 1));
    }
    lengths.padding->pad_id = *options.pad_id;
  }
  if (options.pad_type_id) lengths.padding->pad_type_id = *options.pad_type_id;
  return lengths;
}

// The one-line note the first time truncation cuts a text (never silent): where it came from and how to keep
// every token.
void NoteCut(const SequenceLengths& lengths, const EncodeCommandOptions& options, uint64_t line) {
  std::fprintf(stderr,
               "note: %s was cut to max_length %zu by truncation (%s); --no-truncation keeps every token (later "
               "cuts are not noted)\n",
               line > 0 ? fmt::format("line {}", line).c_str() : "the text", lengths.truncation->max_length,
               options.max_length ? "--max-length" : "the tokenizer.json's \"truncation\"");
}

// The whole input (or each line, --lines) through the library's ChunkedEncoder (tokenizer/batch/chunked_encoder.h):
// chunks encoded on the workers, written here in input order.
absl::Status RunChunked(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                        const EncodeCommandOptions& options, const LineEncoding& lines) {
  TOKVEC_ASSIGN_OR_RETURN(TextSource source, TextSource::Open(options.input));
  // Whole text as ids: each chunk writes " id id ..." straight into its buffer (Tokenizer::EncodeIdText).
  const bool id_text = !options.lines && format == EncodingTextFormat::kIds;
  ChunkedEncoder encoder(tokenizer,
                         {.encode = encode, .lines = options.lines, .threads = options.threads, .id_text = id_text});
  bool wrote_any = false;  // whole text: something written, so the next chunk starts with a space
  bool noted = false;      // the first cut is noted
  auto write = [&](EncodeChunk& chunk) -> absl::Status {
    if (chunk.first_cut_line > 0 && !noted) {
      NoteCut(*lines.lengths, options, chunk.first_cut_line);
      noted = true;
    }
    if (chunk.id_text != nullptr) {
      std::string_view text = chunk.id_text->view();  // " id id ...": the space between chunks included
      if (text.empty()) return absl::OkStatus();
      if (!wrote_any) text.remove_prefix(1);
      TOKVEC_RETURN_IF_ERROR(WriteAll(stdout, text));
      wrote_any = true;
      return absl::OkStatus();
    }
    if (chunk.output.empty()) return absl::OkStatus();
    if (!options.lines && wrote_any) TOKVEC_RETURN_IF_ERROR(WriteAll(stdout, " "));
    TOKVEC_RETURN_IF_ERROR(WriteAll(stdout, chunk.output));
    wrote_any = true;
    return absl::OkStatus();
  };
  const bool around = !options.lines && encode.add_special_tokens;  // the post-processor's tokens, whole text
  if (around) {
    EncodeChunk before{.output = SpellAll(tokenizer, SpecialIdsBefore(tokenizer), format)};
    TOKVEC_RETURN_IF_ERROR(write(before));
  }
  TOKVEC_RETURN_IF_ERROR(encoder.Run(
      source,
      [&](EncodeChunk* chunk, const IdTextCaches& caches) {
        if (options.lines) {
          EncodeLinesChunk(tokenizer, encode, format, caches, chunk, lines);
        } else {
          EncodeTextChunk(tokenizer, encode, format, caches, chunk);
        }
      },
      write));
  if (around) {
    EncodeChunk after{.output = SpellAll(tokenizer, SpecialIdsAfter(tokenizer), format)};
    TOKVEC_RETURN_IF_ERROR(write(after));
  }
  return options.lines ? absl::OkStatus() : WriteAll(stdout, "\n");
}

// The part's file extension for each output format.
const char* PartExtension(EncodingTextFormat format) {
  return format == EncodingTextFormat::kIds ? "ids" : format == EncodingTextFormat::kJson ? "jsonl" : "tokens";
}

// A sharded run: lines n with n mod parts = part of the inputs (their lines in order, split as --lines splits
// them), one output line each, as a part file with its record (distributed/line_parts.h). One thread per part:
// the parallelism is the parts.
absl::Status RunSharded(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                        const EncodeCommandOptions& options, const LineEncoding& lines, int64_t part, int64_t parts,
                        const distributed::World& world) {
  std::error_code error;
  std::filesystem::create_directories(options.output, error);
  if (error || !std::filesystem::is_directory(options.output)) {
    return absl::InvalidArgumentError(fmt::format("cannot make the folder '{}' for the parts", options.output));
  }
  nlohmann::json job = {{"command", "encode"}, {"format", PartExtension(format)},
                              {"pattern", options.pattern}, {"allow_special", options.allow_special},
                              {"add_special_tokens", options.add_special_tokens}};
  if (options.pairs) job["pairs"] = true;  // absent otherwise: the keys of earlier runs stay valid
  if (lines.lengths != nullptr) {           // likewise
    job["truncation"] = WriteHfTruncation(lines.lengths->truncation);
    job["padding"] = WriteHfPadding(lines.lengths->padding);
    job["overflowing"] = lines.windows_as_lines;
  }
  TOKVEC_ASSIGN_OR_RETURN(std::string key, distributed::JobKey(options.inputs, options.model, job.dump()));
  if (distributed::PartIsComplete(options.output, part, parts, key)) {
    std::fprintf(stderr, "part %lld of %lld in %s is complete: skipped\n", static_cast<long long>(part),
                 static_cast<long long>(parts), options.output.c_str());
    return distributed::FinishPart(options.output, key, world);
  }
  std::unique_ptr<PieceCache> shared = tokenizer.NewPieceCache(), local = tokenizer.NewPieceCache();
  std::string out;
  int64_t line_count = 0;
  uint64_t line_number = 0;  // over all inputs, from 1 as --lines numbers them
  for (const std::string& path : options.inputs) {
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    for (size_t at = 0; at < text.size();) {
      const size_t newline = text.find('\n', at);
      const size_t end = newline == std::string::npos ? text.size() : newline + 1;
      ++line_number;
      if (static_cast<int64_t>((line_number - 1) % static_cast<uint64_t>(parts)) == part) {
        EncodeChunk chunk{.text = std::string_view(text).substr(at, end - at), .first_line = line_number};
        EncodeLinesChunk(tokenizer, encode, format, IdTextCaches{shared.get(), local.get(), nullptr, nullptr}, &chunk,
                         lines);
        TOKVEC_RETURN_IF_ERROR(chunk.status);
        out += chunk.output;
        ++line_count;
      }
      at = end;
    }
  }
  TOKVEC_RETURN_IF_ERROR(
      distributed::WritePart(options.output, part, parts, key, PartExtension(format), out, line_count));
  return distributed::FinishPart(options.output, key, world);
}

// --format npz: every line (or pair) of the input as Hugging Face's encode_batch with return_tensors="np" pads
// them: [rows, length] int64 arrays input_ids, attention_mask, token_type_ids (and those --arrays asks for), one
// row per line, padded to the longest (or the file's / --padding's length), in a .npz written atomically.
absl::Status RunNpz(const Tokenizer& tokenizer, const EncodeOptions& encode, const EncodeCommandOptions& options,
                    const SequenceLengths& lengths) {
  bool with_offsets = false, with_words = false, with_special = false;
  for (size_t at = 0; at < options.arrays.size();) {
    size_t comma = options.arrays.find(',', at);
    if (comma == std::string::npos) comma = options.arrays.size();
    const std::string name = options.arrays.substr(at, comma - at);
    if (name == "offsets") {
      with_offsets = true;
    } else if (name == "word_ids") {
      with_words = true;
    } else if (name == "special_tokens_mask") {
      with_special = true;
    } else if (!name.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}--arrays takes offsets, word_ids, special_tokens_mask (comma-separated), not '{}'", kUsagePrefix, name));
    }
    at = comma + 1;
  }
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.input));
  std::vector<std::string_view> a, b;
  size_t line_number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t newline = text.find('\n', at);
    const size_t end = newline == std::string::npos ? text.size() : newline;
    std::string_view line = std::string_view(text).substr(at, end - at);
    if (!line.empty() && line.back() == '\r' && newline != std::string::npos) line.remove_suffix(1);
    at = newline == std::string::npos ? text.size() : newline + 1;
    ++line_number;
    if (!options.pairs) {
      a.push_back(line);
      continue;
    }
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      return absl::InvalidArgumentError(fmt::format(
          "line {}: --pairs expects text A, a tab, text B (exactly one tab)", line_number));
    }
    a.push_back(line.substr(0, tab));
    b.push_back(line.substr(tab + 1));
  }
  absl::StatusOr<std::vector<EncodedTokens>> encoded = EncodeBatch(tokenizer, a, b, encode, lengths);
  if (!encoded.ok()) return encoded.status();
  // Rows: each line, then (--overflowing) its windows, as transformers' return_overflowing_tokens lays them out.
  std::vector<const EncodedTokens*> rows;
  std::vector<int64_t> sample;
  bool cut = false;
  for (size_t i = 0; i < encoded->size(); ++i) {
    const EncodedTokens& e = (*encoded)[i];
    cut = cut || e.truncated;
    rows.push_back(&e);
    sample.push_back(static_cast<int64_t>(i));
    if (!options.overflowing) continue;
    for (const EncodedTokens& window : e.overflowing) {
      rows.push_back(&window);
      sample.push_back(static_cast<int64_t>(i));
    }
  }
  if (cut) NoteCut(lengths, options, 0);
  const int64_t n = static_cast<int64_t>(rows.size());
  const int64_t length = rows.empty() ? 0 : static_cast<int64_t>(rows[0]->size());
  std::vector<int64_t> ids, mask, types, special, words, offsets;
  for (const EncodedTokens* row : rows) {
    for (size_t j = 0; j < row->size(); ++j) {
      ids.push_back(row->ids[j]);
      mask.push_back(row->attention_mask[j]);
      types.push_back(row->type_ids[j]);
      if (with_special) special.push_back(row->special_tokens_mask[j]);
      if (with_words) words.push_back(row->word_ids[j]);
      if (with_offsets) {
        offsets.push_back(static_cast<int64_t>(row->offsets[j].begin));
        offsets.push_back(static_cast<int64_t>(row->offsets[j].end));
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> members = {
      {"input_ids", NpyArray("<i8", {n, length}, AsBytes(ids))},
      {"attention_mask", NpyArray("<i8", {n, length}, AsBytes(mask))},
      {"token_type_ids", NpyArray("<i8", {n, length}, AsBytes(types))}};
  if (with_special) members.emplace_back("special_tokens_mask", NpyArray("<i8", {n, length}, AsBytes(special)));
  if (with_words) members.emplace_back("word_ids", NpyArray("<i8", {n, length}, AsBytes(words)));
  if (with_offsets) members.emplace_back("offsets", NpyArray("<i8", {n, length, 2}, AsBytes(offsets)));
  if (options.overflowing) {
    members.emplace_back("overflow_to_sample_mapping", NpyArray("<i8", {n}, AsBytes(sample)));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::string archive, NpzArchive(members));
  return WriteFileAtomically(options.output, archive);
}

absl::Status RunEncode(const EncodeCommandOptions& options, bool allow_special_given) {
  if (!options.gather.empty()) {  // join the parts of a sharded run, lines in input order
    if (!options.inputs.empty() || !options.shard.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}--gather DIR takes no input files and no --shard",
                                                    kUsagePrefix));
    }
    TOKVEC_ASSIGN_OR_RETURN(std::string all, distributed::GatherLineParts(options.gather));
    if (options.output.empty() || options.output == "-") return WriteAll(stdout, all);
    return WriteFileAtomically(options.output, all);
  }
  if (options.model.empty()) return absl::InvalidArgumentError(fmt::format("{}--model is required", kUsagePrefix));
  const bool npz = options.format == "npz";
  if (npz && (options.tokens || options.readable || !options.shard.empty() || options.output.empty() ||
              options.output == "-" || options.inputs.size() > 1)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--format npz writes one .npz of the lines of one input: it needs -o FILE.npz, and takes no --tokens, "
        "--readable or --shard", kUsagePrefix));
  }
  if (!npz && !options.arrays.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}--arrays is for --format npz", kUsagePrefix));
  }
  EncodingTextFormat format = options.format == "json"     ? EncodingTextFormat::kJson
                              : options.format == "tokens" ? EncodingTextFormat::kTokens
                                                           : EncodingTextFormat::kIds;
  if (options.tokens) {
    if (format == EncodingTextFormat::kJson) {
      return absl::InvalidArgumentError(
          fmt::format("{}--tokens is --format tokens; it cannot be combined with --format json", kUsagePrefix));
    }
    format = EncodingTextFormat::kTokens;
  }
  if (options.readable) {
    if (format != EncodingTextFormat::kTokens) {
      return absl::InvalidArgumentError(
          fmt::format("{}--readable shows tokens; use it with --tokens (or --format tokens)", kUsagePrefix));
    }
    format = EncodingTextFormat::kReadable;
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("{}--threads must be at least 1, not {}", kUsagePrefix, options.threads));
  }
  Tokenizer::LoadOptions load;
  load.pattern = options.pattern;
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(options.model, load));
  EncodeOptions encode;
  if (allow_special_given) {
    if (options.allow_special == kAllowAll || options.allow_special.empty()) {
      encode.allow_all_special = true;
    } else {
      for (size_t at = 0; at <= options.allow_special.size();) {
        size_t comma = options.allow_special.find(',', at);
        if (comma == std::string::npos) comma = options.allow_special.size();
        if (comma > at) encode.allowed_special.push_back(options.allow_special.substr(at, comma - at));
        at = comma + 1;
      }
    }
  }
  encode.add_special_tokens = options.add_special_tokens;
  if (npz) {  // arrays need rows of one length: padding on (BatchLongest) unless the file or --padding says
    if (options.no_padding) {
      return absl::InvalidArgumentError(fmt::format("{}--format npz pads the rows to one length; it takes no "
                                                    "--no-padding", kUsagePrefix));
    }
    EncodeCommandOptions padded = options;
    if (padded.padding.empty() && !tokenizer->spec().padding) padded.padding = "longest";
    TOKVEC_ASSIGN_OR_RETURN(const SequenceLengths lengths, LengthsOf(*tokenizer, padded));
    return RunNpz(*tokenizer, encode, padded, lengths);
  }
  TOKVEC_ASSIGN_OR_RETURN(const SequenceLengths lengths, LengthsOf(*tokenizer, options));
  const bool sized = lengths.truncation || lengths.padding;
  if (options.overflowing && (!lengths.truncation || format == EncodingTextFormat::kJson)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}--overflowing writes truncation's windows as lines: it needs truncation (--max-length or the "
        "tokenizer.json's) and ids or tokens output (json has them in \"overflowing\")",
        kUsagePrefix));
  }
  const LineEncoding lines{.pairs = options.pairs, .lengths = sized ? &lengths : nullptr,
                           .windows_as_lines = options.overflowing};
  const distributed::World world = distributed::JoinWorld();
  TOKVEC_ASSIGN_OR_RETURN(std::optional<Shard> shard, ShardOfRun(options.shard, world));
  if (shard) {
    if (!options.lines || options.inputs.empty() || options.output.empty() || options.output == "-") {
      return absl::InvalidArgumentError(fmt::format(
          "{}a sharded run (--shard or mpirun) needs --lines, input files and -o DIR (the folder of part files)",
          kUsagePrefix));
    }
    return RunSharded(*tokenizer, encode, format, options, lines, shard->index, shard->count, world);
  }
  if (options.inputs.size() > 1 || !options.output.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}several input files and -o are for sharded runs (--shard); otherwise encode reads one file and writes "
        "standard output",
        kUsagePrefix));
  }
  if (options.lines || (format != EncodingTextFormat::kJson && !sized)) {
    return RunChunked(*tokenizer, encode, format, options, lines);
  }
  // A whole text as json (ids, spellings and offsets into the whole input), or truncated or padded, is encoded in
  // one piece.
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.input));
  if (sized) {
    TOKVEC_ASSIGN_OR_RETURN(EncodedTokens rows, EncodeSequences(*tokenizer, text, std::nullopt, encode, lengths));
    if (rows.truncated) NoteCut(lengths, options, 0);
    std::string out;
    AppendEncodedTokens(*tokenizer, rows, format, 0, options.overflowing, &out);
    return WriteAll(stdout, out);
  }
  TOKVEC_ASSIGN_OR_RETURN(Encoding encoding, tokenizer->Encode(text, encode));
  std::string out;
  AppendEncoding(*tokenizer, encoding, format, &out);
  return WriteAll(stdout, out);
}

}  // namespace

void RegisterEncodeCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<EncodeCommandOptions>();
  CLI::App* sub = app.add_subcommand("encode", "Turn text into token ids");
  sub->add_option("-m,--model", options->model,
                  "Tokenizer: tokvec model, .tiktoken, vocab.json (+merges.txt), tokenizer.json or a directory "
                  "(required except with --gather)");
  sub->add_option("--pattern", options->pattern, "Split pattern for a .tiktoken file of unknown name");
  sub->add_option("--format", options->format,
                  "ids, tokens, json, or npz (-o FILE.npz: every line padded into [rows, length] int64 arrays "
                  "input_ids, attention_mask, token_type_ids, as Hugging Face's return_tensors=\"np\")")
      ->check(CLI::IsMember({"ids", "tokens", "json", "npz"}))
      ->capture_default_str();
  sub->add_flag("--tokens", options->tokens, "Write token spellings instead of ids (= --format tokens)");
  sub->add_flag("--readable", options->readable,
                "With --tokens: each token as decoded text, ␣ for a space, ⏎ for a newline, <0xE6> for a byte "
                "that is not a whole character (instead of GPT-2's Ġcat, Ċ)");
  sub->add_flag("--lines", options->lines, "Encode each line on its own; one output line per input line");
  CLI::Option* allow = sub->add_flag(std::string("--allow-special{") + kAllowAll + "}", options->allow_special,
                                     "Encode text spelling a special token as that token: all of them, or "
                                     "--allow-special=LIST (comma-separated)");
  sub->add_flag("--add-special-tokens", options->add_special_tokens,
                "Add the tokens of the tokenizer.json's post_processor around each text (Hugging Face's "
                "add_special_tokens=True: [CLS] ... [SEP], <s> ... </s>); nothing for a tokenizer without one");
  sub->add_flag("--pairs", options->pairs,
                "Each line is text A, a tab, text B: encode it as a sentence pair (Hugging Face's encode(a, b); with "
                "--add-special-tokens the post_processor's pair template, e.g. [CLS] A [SEP] B [SEP]); implies "
                "--lines; --format json adds \"type_ids\"");
  sub->add_flag("--no-truncation", options->no_truncation,
                "Keep every token: ignore the tokenizer.json's \"truncation\" (applied by default, as Hugging Face "
                "does; the first text cut is noted on stderr)");
  sub->add_flag("--no-padding", options->no_padding, "Ignore the tokenizer.json's \"padding\" (applied by default)");
  sub->add_option("--max-length", options->max_length,
                  "Truncate each text (or pair) to N tokens, the post-processor's included (Hugging Face's "
                  "max_length); on any tokenizer")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--truncation-side", options->truncation_side, "Keep the start (right, default) or the end (left)")
      ->check(CLI::IsMember({"left", "right"}));
  sub->add_option("--stride", options->stride,
                  "Overflowing windows overlap by S tokens (Hugging Face's return_overflowing_tokens; json: "
                  "\"overflowing\", ids/tokens: --overflowing)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--truncation-strategy", options->truncation_strategy,
                  "For pairs: longest_first (default), only_first, only_second")
      ->check(CLI::IsMember({"longest_first", "only_first", "only_second"}));
  sub->add_flag("--overflowing", options->overflowing,
                "Write the windows truncation cuts off as lines of their own after their text's line (npz: rows, "
                "with overflow_to_sample_mapping)");
  sub->add_option("--arrays", options->arrays,
                  "--format npz: more arrays, comma-separated: offsets ([rows, length, 2] byte offsets into each "
                  "text), word_ids (-1: none), special_tokens_mask");
  sub->add_option("--padding", options->padding,
                  "Pad with the pad token: 'longest' (each text to its own length, rounded by --pad-to-multiple-of; "
                  "Hugging Face's BatchLongest) or N (to N tokens; Fixed)")
      ->check([](const std::string& value) {
        if (value == "longest") return std::string();
        return value.find_first_not_of("0123456789") == std::string::npos && !value.empty() && value.size() < 10
                   ? std::string()
                   : std::string("must be 'longest' or a number of tokens");
      });
  sub->add_option("--pad-to-multiple-of", options->pad_to_multiple_of, "Round the padded length up to a multiple of M")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--padding-side", options->padding_side, "Pad on the right (default) or the left")
      ->check(CLI::IsMember({"left", "right"}));
  sub->add_option("--pad-id", options->pad_id, "The pad token's id (default: the tokenizer.json's, else 0)");
  sub->add_option("--pad-type-id", options->pad_type_id, "The pad tokens' type id (default 0)");
  sub->add_option("--threads", options->threads, "Threads encoding chunks of the input (same output for any count)")->capture_default_str();
  sub->add_option("--shard", options->shard,
                  "i/P with --lines: encode only the lines n with n mod P = i into -o DIR/part-iiiii.ids (a record "
                  "and manifest.json beside it); a re-run skips a complete part. Under mpirun: the rank and size")
      ->check([](const std::string& value) { return ParseShard(value).ok() ? "" : "must be i/P with i < P"; });
  sub->add_option("--gather", options->gather, "Join the parts in DIR (lines in input order) to -o or standard output")
      ->excludes("--shard");
  sub->add_option("-o,--output", options->output,
                  "The parts' folder (with --shard), --gather's output file, or --format npz's file");
  sub->add_option("inputs", options->inputs,
                  "Text file; none or '-' reads standard input (several: only with --shard, their lines in order)");
  sub->callback([options, allow, action] {
    options->input = options->inputs.empty() ? "-" : options->inputs[0];
    if (options->pairs) options->lines = true;
    const bool given = allow->count() > 0;
    *action = [options, given] { return RunEncode(*options, given); };
  });
}

}  // namespace tokvec::cli
