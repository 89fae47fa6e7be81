// tokvec embed: contextual vectors for a text (or one text per line) from a model directory.
//
//   tokvec embed -m models/tiny input.txt                               # json {"tokens", "ids", "vectors" [T, D]}
//   tokvec embed -m all-distilroberta-v1 --lines --format npy -o v.npy  # sentence-transformers pooling: [N, D]
//   tokvec embed -m gpt2 --window 1024 --stride 512 book.txt            # longer than n_positions
//
// Pooling: none (default; auto for a sentence-transformers directory) keeps [T, D]; mean, cls, last, max give one
// vector per text. --normalize scales each output vector to unit length. The text's final newline is not part
// of it. --lines: one text per line; lines of equal token count run together (Model::ForwardBatch), batches
// spread over --threads; a progress line on stderr when stderr is a terminal and there are at least 100 lines; json output is then JSON Lines (one object per
// text), npy needs a pooling ([N, D]), tsv gives the vectors of all texts one after another.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attention/embed_texts.h"
#include "attention/model_directory.h"
#include "attention/ops.h"
#include "attention/pooling.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "embeddings/npy.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

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
  std::string input = "-";
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

std::string ToJson(const TextVectors& v) {
  nlohmann::json tokens = v.tokens, ids = v.ids;
  std::string out = "{\"tokens\": " + tokens.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                    ", \"ids\": " + ids.dump() + ", \"vectors\": [";
  for (int64_t r = 0; r < v.vectors.rows(); ++r) {
    out += r > 0 ? ", [" : "[";
    AppendRow(&out, v.vectors.row(r), v.vectors.cols(), ", ");
    out += "]";
  }
  return out + "]}\n";
}

std::string ToTsv(const Matrix& vectors) {
  std::string out;
  for (int64_t r = 0; r < vectors.rows(); ++r) {
    AppendRow(&out, vectors.row(r), vectors.cols(), "\t");
    out += '\n';
  }
  return out;
}

absl::Status RunEmbed(const EmbedCommandOptions& options) {
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("{}--threads must be at least 1, not {}", kUsagePrefix, options.threads));
  }
  if (options.stride > 0 && options.window == 0) {
    return absl::InvalidArgumentError(fmt::format("{}--stride needs --window", kUsagePrefix));
  }
  TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load(options.model));
  // 1. Pooling: explicit, or (auto) the sentence-transformers modules, else none (attention/embed_texts.h).
  TOKVEC_ASSIGN_OR_RETURN(PoolingChoice choice, ChoosePooling(dir, options.pooling, options.normalize));
  const Pooling pooling = choice.pooling;
  const bool normalize = choice.normalize;
  if (options.lines && pooling == Pooling::kNone && options.format == "npy") {
    return absl::InvalidArgumentError(fmt::format(
        "{}--format npy with --lines needs a --pooling (mean, cls, last, max): texts have different token counts",
        kUsagePrefix));
  }
  const int64_t stride =
      options.window > 0 && options.stride == 0 ? std::max<int64_t>(1, options.window / 2) : options.stride;
  TOKVEC_ASSIGN_OR_RETURN(std::string input, ReadFile(options.input));

  // 2. Embed: one text with all threads, or lines spread over the threads.
  std::vector<TextVectors> results;
  if (!options.lines) {
    EmbedOptions embed_options{.threads = options.threads, .window = options.window, .stride = stride};
    TOKVEC_ASSIGN_OR_RETURN(EmbeddedText embedded, dir.Embed(StripFinalNewline(input), embed_options));
    TOKVEC_ASSIGN_OR_RETURN(TextVectors one, PoolEmbedded(std::move(embedded), pooling, normalize));
    results.push_back(std::move(one));
  } else {
    std::vector<std::string_view> texts;
    std::string_view rest = input;
    while (!rest.empty()) {
      const size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      texts.push_back(line);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
    EmbedTextsOptions embed_options{.pooling = pooling, .normalize = normalize, .threads = options.threads,
                                    .window = options.window, .stride = stride};
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

  // 3. Write.
  std::string out;
  if (options.format == "json") {
    for (const auto& r : results) out += ToJson(r);
  } else if (options.format == "tsv") {
    for (size_t i = 0; i < results.size(); ++i) {
      if (i > 0 && pooling == Pooling::kNone) out += '\n';  // a blank line between texts
      out += ToTsv(results[i].vectors);
    }
  } else {
    const int64_t d = dir.model().config().d_model;
    if (!options.lines) {
      out = NpyFloat32(results[0].vectors.data(), {results[0].vectors.rows(), d});
    } else {
      std::vector<float> all;
      all.reserve(results.size() * static_cast<size_t>(d));
      for (const auto& r : results) all.insert(all.end(), r.vectors.data(), r.vectors.data() + d);
      out = NpyFloat32(all.data(), {static_cast<int64_t>(results.size()), d});
    }
  }
  return WriteFileAtomically(options.output, out);
}

}  // namespace

void RegisterEmbedCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<EmbedCommandOptions>();
  CLI::App* sub = app.add_subcommand("embed", "Contextual vectors for text from a model directory");
  sub->add_option("-m,--model", options->model, "Model directory (config.json, model.safetensors, tokenizer)")
      ->required();
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
  sub->add_option("--window", options->window,
                  "Embed long input in windows of N tokens; each token's vector comes from the window where it "
                  "has the most context")
      ->check(CLI::PositiveNumber);
  sub->add_option("--stride", options->stride, "Tokens between window starts (default N/2)")
      ->check(CLI::PositiveNumber);
  sub->add_option("-o,--output", options->output, "Output file ('-' = standard output)")->capture_default_str();
  sub->add_option("input", options->input, "Input text file ('-' = standard input)")->capture_default_str();
  sub->callback([options, action] { *action = [options] { return RunEmbed(*options); }; });
}

}  // namespace tokvec::cli
