// tokvec embed: contextual vectors for a text (or one text per line) from a model directory.
//
//   tokvec embed -m models/tiny input.txt                               # json {"tokens", "ids", "vectors" [T, D]}
//   tokvec embed -m all-distilroberta-v1 --lines --format npy -o v.npy  # sentence-transformers pooling: [N, D]
//   tokvec embed -m all-MiniLM-L6-v2 --lines --format npy -o v.npy      # BERT: [CLS] ... [SEP], mean + Normalize
//   tokvec embed -m gpt2 --window 1024 --stride 512 book.txt            # longer than n_positions
//   tokvec embed -m M --lines --pooling mean --format npy --shard 3/8 -o parts/ a.txt b.txt   # part 3 of 8
//   tokvec embed --gather parts/ -o all.npy                              # rows back in input order
//   tokvec embed -m M --lines --format npy --dimensions 256 -o v.npy     # Matryoshka: first 256, unit length
//   tokvec embed -m e5 --lines --prompt "query: " --truncate q.txt       # a prompt; long lines cut, not refused
//   tokvec embed -m M --lines --format npy --precision ubinary -o b.npy  # sentence-transformers' binary codes
//
// Sharded runs (--shard i/P, or each rank under mpirun) embed the lines n with n mod P = i of the inputs into
// DIR/part-iiiii.npy with a record (distributed/line_parts.h); a re-run skips parts whose record matches the
// inputs, model and options; --gather joins the parts into the bytes one process writes.
//
// Pooling: none (default; auto for a sentence-transformers directory) keeps [T, D]; mean, cls, last, max give one
// vector per text. --normalize scales each output vector to unit length. The text's final newline is not part
// of it. --lines: one text per line; lines of equal token count run together (Model::ForwardBatch), batches
// spread over --threads; a progress line on stderr when stderr is a terminal and there are at least 100 lines; json output is then JSON Lines (one object per
// text), npy needs a pooling ([N, D]), tsv gives the vectors of all texts one after another.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <utility>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/prompt_flags.h"
#include "cli/shard_option.h"
#include "cli/text_lines.h"
#include "distributed/line_parts.h"
#include "distributed/world.h"
#include "embeddings/npy.h"
#include "fmt/format.h"
#include "kernels/low_precision_linear.h"
#include "kernels/ops.h"
#include "nlohmann/json.hpp"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "pipeline/pooling.h"
#include "retrieval/quantize.h"

namespace tokvec::cli {
namespace {

struct EmbedCommandOptions {
  std::string model;
  std::string pooling = "auto";
  bool normalize = false;
  std::string format = "json";
  bool lines = false;
  int threads = 1;
  int64_t window = 0;
  int64_t stride = 0;
  std::string output = "-";
  std::vector<std::string> inputs;  // none: standard input
  std::string shard;                // "i/P": only lines n with n mod P = i, as OUT/part-iiiii.npy
  std::string gather;               // a folder of parts to join into -o
  std::string dtype = "f32";        // the big linear layers' precision (kernels/low_precision_linear.h)
  PromptFlags prompt;                 // --prompt, --prompt-name, --truncate, ... (cli/prompt_flags.h)
  int64_t dimensions = 0;           // Matryoshka: keep the first K values, renormalised (0: all)
  std::string precision = "float32";  // retrieval/quantize.h
  std::string calibration;          // .npy of embeddings whose column ranges quantize int8/uint8
  std::string ranges;               // .npy [2, D] of those ranges
};

std::string_view StripFinalNewline(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

// Floats in their shortest round-trip form.
void AppendRow(std::string* out, const float* row, int64_t d, std::string_view separator) {
  for (int64_t j = 0; j < d; ++j) {
    if (j > 0) *out += separator;
    *out += fmt::format("{}", row[j]);
  }
}

// One text's JSON line: its tokens, ids and `vectors` (a JSON array of rows).
std::string JsonLine(const TextVectors& v, const std::string& vectors) {
  nlohmann::json tokens = v.tokens, ids = v.ids;
  return "{\"tokens\": " + tokens.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         ", \"ids\": " + ids.dump() + ", \"vectors\": " + vectors + "}\n";
}

std::string ToJson(const TextVectors& v) {
  std::string vectors = "[";
  for (int64_t r = 0; r < v.vectors.rows(); ++r) {
    vectors += r > 0 ? ", [" : "[";
    AppendRow(&vectors, v.vectors.row(r), v.vectors.cols(), ", ");
    vectors += "]";
  }
  return JsonLine(v, vectors + "]");
}

std::string ToTsv(const Matrix& vectors) {
  std::string out;
  for (int64_t r = 0; r < vectors.rows(); ++r) {
    AppendRow(&out, vectors.row(r), vectors.cols(), "\t");
    out += '\n';
  }
  return out;
}

// A float32 [R, D] .npy file's rows.
absl::StatusOr<Matrix> ReadNpyMatrix(const std::string& path) {
  TOKVEC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  auto view = ParseNpyFloat32Matrix(bytes);
  if (!view.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, std::string(view.status().message())));
  }
  Matrix m(view->rows, view->cols);
  std::memcpy(m.data(), bytes.data() + view->data_offset, static_cast<size_t>(m.size()) * sizeof(float));
  return m;
}

// --precision: every output row ([sum of the texts' rows, d]) quantized together, int8/uint8 ranges from
// --ranges, --calibration or the rows themselves.
absl::StatusOr<QuantizedMatrix> QuantizeResults(const std::vector<TextVectors>& results, int64_t d,
                                                Precision precision, const EmbedCommandOptions& options) {
  const Matrix all = StackVectors(results, d);
  std::optional<QuantizationRanges> ranges;
  if (!options.ranges.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(Matrix m, ReadNpyMatrix(options.ranges));
    TOKVEC_ASSIGN_OR_RETURN(ranges, RangesFromMatrix(m.view()));
    if (m.cols() != d) {
      return absl::InvalidArgumentError(
          fmt::format("{}: the ranges have {} dimensions, the output {}", options.ranges, m.cols(), d));
    }
  } else if (!options.calibration.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(Matrix m, ReadNpyMatrix(options.calibration));
    if (m.cols() != d) {
      return absl::InvalidArgumentError(fmt::format("{}: the calibration embeddings have {} dimensions, the output {}",
                                                    options.calibration, m.cols(), d));
    }
    TOKVEC_ASSIGN_OR_RETURN(ranges, RangesOf(m.view()));
  }
  return Quantize(all.view(), precision, ranges ? &*ranges : nullptr);
}

absl::Status RunEmbed(const EmbedCommandOptions& options) {
  if (!options.gather.empty()) {  // join the parts of a sharded run, rows in input order
    if (!options.inputs.empty() || !options.shard.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}--gather DIR takes no input files and no --shard",
                                                    kUsagePrefix));
    }
    TOKVEC_ASSIGN_OR_RETURN(std::string all, distributed::GatherNpyParts(options.gather));
    return WriteFileAtomically(options.output, all);
  }
  if (options.model.empty()) return absl::InvalidArgumentError(fmt::format("{}--model is required", kUsagePrefix));
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("{}--threads must be at least 1, not {}", kUsagePrefix, options.threads));
  }
  if (options.stride > 0 && options.window == 0) {
    return absl::InvalidArgumentError(fmt::format("{}--stride needs --window", kUsagePrefix));
  }
  TOKVEC_ASSIGN_OR_RETURN(const LinearDtype dtype, ParseLinearDtype(options.dtype));
  TOKVEC_RETURN_IF_ERROR(CheckCpuSupports(dtype));  // before the (slow) load
  // Packed once, for `dtype` (an f32 load would pack f32 copies for the AVX-512 GEMM first).
  TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load(options.model, dtype));
  // 1. Pooling: explicit, or (auto) the sentence-transformers modules, else none (pipeline/embed_texts.h).
  TOKVEC_ASSIGN_OR_RETURN(PoolingChoice choice, ChoosePooling(dir, options.pooling, options.normalize));
  const Pooling pooling = choice.pooling;
  const bool normalize = choice.normalize;
  if (options.lines && pooling == Pooling::kNone && options.format == "npy") {
    return absl::InvalidArgumentError(fmt::format(
        "{}--format npy with --lines needs a --pooling (mean, cls, last, max): texts have different token counts",
        kUsagePrefix));
  }
  // Prompt and truncation, as sentence-transformers applies them (cli/prompt_flags.h).
  EmbedTextsOptions text_options;
  TOKVEC_RETURN_IF_ERROR(ApplyPromptFlags(options.prompt, dir, choice, options.pooling == "auto", &text_options));
  if (text_options.truncate != Truncation::kNone && options.window > 0) {
    return absl::InvalidArgumentError(fmt::format("{}--truncate and --window exclude each other", kUsagePrefix));
  }
  TOKVEC_ASSIGN_OR_RETURN(const Precision precision, ParsePrecision(options.precision));
  if (precision != Precision::kFloat32 && options.format == "tsv") {
    return absl::InvalidArgumentError(fmt::format("{}--precision {} needs --format npy or json", kUsagePrefix,
                                                  options.precision));
  }
  const bool int_codes = precision == Precision::kInt8 || precision == Precision::kUint8;
  if ((!options.ranges.empty() || !options.calibration.empty()) && !int_codes) {
    return absl::InvalidArgumentError(fmt::format("{}--ranges and --calibration go with --precision int8 or uint8",
                                                  kUsagePrefix));
  }
  if (!options.ranges.empty() && !options.calibration.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}give --ranges or --calibration, not both", kUsagePrefix));
  }
  const int64_t model_dims = OutputWidth(dir, choice);  // d_model, or the last Dense module's width
  if (options.dimensions > model_dims) {
    return absl::InvalidArgumentError(fmt::format("--dimensions {} is more than the model's {}", options.dimensions,
                                                  model_dims));
  }
  const int64_t stride =
      options.window > 0 && options.stride == 0 ? std::max<int64_t>(1, options.window / 2) : options.stride;
  // Sharded: --shard i/P, or the MPI rank and size under mpirun. Part i holds the lines n with n mod P = i.
  const distributed::World world = distributed::JoinWorld();
  TOKVEC_ASSIGN_OR_RETURN(std::optional<Shard> shard, ShardOfRun(options.shard, world));
  const bool sharded = shard.has_value();
  const int64_t part = sharded ? shard->index : 0, parts = sharded ? shard->count : 1;
  if (sharded && precision != Precision::kFloat32) {
    return absl::InvalidArgumentError(fmt::format(
        "{}a sharded run writes float32 parts: quantize the gathered file instead (--precision)", kUsagePrefix));
  }
  if (sharded && (!options.lines || pooling == Pooling::kNone || options.format != "npy" || options.inputs.empty() ||
                  options.output == "-")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}a sharded run (--shard or mpirun) needs --lines, a --pooling, --format npy, input files and -o DIR "
        "(the folder of part files)",
        kUsagePrefix));
  }
  if (!options.lines && options.inputs.size() > 1) {
    return absl::InvalidArgumentError(fmt::format("{}several input files need --lines", kUsagePrefix));
  }
  std::string key;
  if (sharded) {
    std::error_code error;
    std::filesystem::create_directories(options.output, error);
    if (error || !std::filesystem::is_directory(options.output)) {
      return absl::InvalidArgumentError(fmt::format("cannot make the folder '{}' for the parts", options.output));
    }
    nlohmann::json job_options = {{"pooling", PoolingName(pooling)}, {"normalize", normalize},
                                  {"window", options.window}, {"stride", stride}};
    // Each key only when set: older records stay valid.
    if (!text_options.prompt.empty()) job_options["prompt"] = text_options.prompt;
    if (text_options.truncate != Truncation::kNone) {
      job_options["truncate"] = {options.prompt.truncate, text_options.max_length};
    }
    if (options.dimensions > 0) job_options["dimensions"] = options.dimensions;
    TOKVEC_ASSIGN_OR_RETURN(key, distributed::JobKey(options.inputs, options.model, job_options.dump()));
    if (distributed::PartIsComplete(options.output, part, parts, key)) {
      std::fprintf(stderr, "part %lld of %lld in %s is complete: skipped\n", static_cast<long long>(part),
                   static_cast<long long>(parts), options.output.c_str());
      return distributed::FinishPart(options.output, key, world);
    }
  }
  std::vector<std::string> contents;
  for (const std::string& path : options.inputs.empty() ? std::vector<std::string>{"-"} : options.inputs) {
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    contents.push_back(std::move(text));
  }
  const std::string& input = contents[0];

  // 2. Embed: one text with all threads, or lines spread over the threads.
  std::vector<TextVectors> results;
  if (!options.lines) {
    EmbedOptions embed_options{.threads = options.threads, .window = options.window, .stride = stride};
    TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids,
                            dir.Tokenize(text_options.prompt + std::string(StripFinalNewline(input))));
    TOKVEC_RETURN_IF_ERROR(TruncateIds(dir, text_options.truncate, text_options.max_length, &ids));
    TOKVEC_ASSIGN_OR_RETURN(EmbeddedText embedded, dir.EmbedIds(std::move(ids), embed_options));
    TOKVEC_ASSIGN_OR_RETURN(TextVectors one,
                            PoolEmbedded(std::move(embedded), pooling, normalize, text_options.pool_skip,
                                         choice.dense.get()));
    results.push_back(std::move(one));
  } else {
    std::vector<std::string_view> all_lines, texts;
    for (const std::string& text : contents) AppendLines(text, &all_lines);
    for (size_t n = static_cast<size_t>(part); n < all_lines.size(); n += static_cast<size_t>(parts)) {
      texts.push_back(all_lines[n]);
    }
    EmbedTextsOptions embed_options = text_options;
    embed_options.pooling = pooling;
    embed_options.normalize = normalize;
    embed_options.dense = choice.dense;
    embed_options.threads = options.threads;
    embed_options.window = options.window;
    embed_options.stride = stride;
    // A progress line on stderr when it is a terminal and there are at least 100 lines.
    if (isatty(STDERR_FILENO) && texts.size() >= 100) {
      embed_options.progress = [](size_t done, size_t total) {
        if (done % 50 != 0 && done != total) return;
        std::fprintf(stderr, "\rembedded %zu/%zu lines", done, total);
        if (done == total) std::fprintf(stderr, "\n");
      };
    }
    TOKVEC_ASSIGN_OR_RETURN(results, EmbedTexts(dir, texts, embed_options));
  }

  // 3. Matryoshka dimensions, then precision.
  if (options.dimensions > 0) {
    for (TextVectors& r : results) {
      TOKVEC_ASSIGN_OR_RETURN(r.vectors, TruncateDimensions(r.vectors.view(), options.dimensions));
    }
  }
  std::string out;
  if (precision != Precision::kFloat32) {
    const int64_t d = options.dimensions > 0 ? options.dimensions : model_dims;
    TOKVEC_ASSIGN_OR_RETURN(const QuantizedMatrix codes, QuantizeResults(results, d, precision, options));
    if (options.format == "json") {  // each text's rows, in order
      int64_t row = 0;
      for (const TextVectors& r : results) {
        std::string vectors = "[";
        for (int64_t k = 0; k < r.vectors.rows(); ++k) {
          vectors += (k > 0 ? ", " : "") + QuantizedRowJson(codes, row++, ", ");
        }
        out += JsonLine(r, vectors + "]");
      }
    } else {
      out = QuantizedNpy(codes);
    }
    return WriteFileAtomically(options.output, out);
  }

  // 4. Write.
  if (options.format == "json") {
    for (const auto& r : results) out += ToJson(r);
  } else if (options.format == "tsv") {
    for (size_t i = 0; i < results.size(); ++i) {
      if (i > 0 && pooling == Pooling::kNone) out += '\n';  // a blank line between texts
      out += ToTsv(results[i].vectors);
    }
  } else {
    const int64_t d = options.dimensions > 0 ? options.dimensions : model_dims;
    if (!options.lines) {
      out = NpyFloat32(results[0].vectors.data(), {results[0].vectors.rows(), d});
    } else {
      const Matrix all = StackVectors(results, d);  // pooled: one row per text
      out = NpyFloat32(all.data(), {all.rows(), d});
    }
  }
  if (sharded) {
    TOKVEC_RETURN_IF_ERROR(distributed::WritePart(options.output, part, parts, key, "npy", out,
                                                  static_cast<int64_t>(results.size())));
    return distributed::FinishPart(options.output, key, world);
  }
  return WriteFileAtomically(options.output, out);
}

}  // namespace

void RegisterEmbedCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<EmbedCommandOptions>();
  CLI::App* sub = app.add_subcommand("embed", "Contextual vectors for text from a model directory");
  sub->add_option("-m,--model", options->model,
                  "Model directory (config.json, model.safetensors, tokenizer); required except with --gather");
  sub->add_option("--pooling", options->pooling,
                  "none | mean | cls | last | max | auto (sentence-transformers modules.json if present, else none)")
      ->check(CLI::IsMember({"auto", "none", "mean", "cls", "last", "max"}))
      ->capture_default_str();
  sub->add_flag("--normalize", options->normalize, "Scale every output vector to unit length");
  sub->add_option("--format", options->format, "json | npy | tsv")
      ->check(CLI::IsMember({"json", "npy", "tsv"}))
      ->capture_default_str();
  sub->add_flag("--lines", options->lines, "Embed each line as its own text");
  sub->add_option("--threads", options->threads, "Worker threads")->capture_default_str();
  sub->add_option("--dtype", options->dtype,
                  "Precision of the big linear layers: f32 | bf16 (AVX-512 BF16) | int8 (AVX-512 VNNI); an "
                  "unsupported CPU is an error")
      ->check(CLI::IsMember({"f32", "bf16", "int8"}))
      ->capture_default_str();
  AddPromptFlags(sub, &options->prompt, "");
  sub->add_option("--dimensions", options->dimensions,
                  "Keep the first K values of every vector and rescale it to unit length (Matryoshka; the OpenAI "
                  "API's dimensions)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  sub->add_option("--precision", options->precision,
                  "float32 | int8 | uint8 | binary | ubinary: sentence-transformers' quantized embeddings (npy or json "
                  "output; int8/uint8 ranges from --ranges, --calibration or the output itself)")
      ->check(CLI::IsMember({"float32", "int8", "uint8", "binary", "ubinary"}))
      ->capture_default_str();
  sub->add_option("--calibration", options->calibration,
                  "int8/uint8: a float32 .npy of embeddings whose per-dimension min and max set the ranges");
  sub->add_option("--ranges", options->ranges, "int8/uint8: a float32 .npy [2, D] of per-dimension min and max");
  sub->add_option("--window", options->window,
                  "Embed long input in windows of N tokens; each token's vector comes from the window where it "
                  "has the most context")
      ->check(CLI::PositiveNumber);
  sub->add_option("--stride", options->stride, "Tokens between window starts (default N/2)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--shard", options->shard,
                  "i/P: embed only the lines n with n mod P = i, into -o DIR/part-iiiii.npy (+ a record and "
                  "manifest.json); a re-run skips complete parts. Under mpirun: the rank and size")
      ->check([](const std::string& value) { return ParseShard(value).ok() ? "" : "must be i/P with i < P"; });
  sub->add_option("--gather", options->gather, "Join the parts in DIR (rows in input order) into -o")
      ->excludes("--shard");
  sub->add_option("-o,--output", options->output, "Output file ('-' = standard output); with --shard a folder")
      ->capture_default_str();
  sub->add_option("inputs", options->inputs,
                  "Input text files (none or '-': standard input; several need --lines: their lines in order)");
  sub->callback([options, action] { *action = [options] { return RunEmbed(*options); }; });
}

}  // namespace tokvec::cli
