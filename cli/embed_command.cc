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
#include <atomic>
#include <map>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

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

// One text's result: its tokens and the vectors to print ([T, D], or [1, D] pooled).
struct TextVectors {
  std::vector<uint32_t> ids;
  std::vector<std::string> tokens;
  Matrix vectors;
};

std::string_view StripFinalNewline(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

// Pools (unless none) and normalizes (if asked) one text's hidden states.
absl::StatusOr<TextVectors> ToOutput(EmbeddedText embedded, Pooling pooling, bool normalize) {
  TextVectors out{std::move(embedded.ids), std::move(embedded.tokens), {}};
  if (pooling == Pooling::kNone) {
    out.vectors = std::move(embedded.hidden);
  } else {
    TOKVEC_ASSIGN_OR_RETURN(std::vector<float> pooled, PoolVectors(embedded.hidden.view(), pooling));
    out.vectors = Matrix(1, static_cast<int64_t>(pooled.size()));
    std::copy(pooled.begin(), pooled.end(), out.vectors.data());
  }
  if (normalize) {
    for (int64_t r = 0; r < out.vectors.rows(); ++r) {
      NormalizeL2(std::span<float>(out.vectors.row(r), static_cast<size_t>(out.vectors.cols())));
    }
  }
  return out;
}

absl::StatusOr<TextVectors> EmbedOne(const ModelDirectory& dir, std::string_view text, Pooling pooling,
                                     bool normalize, const EmbedOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(EmbeddedText embedded, dir.Embed(text, options));
  return ToOutput(std::move(embedded), pooling, normalize);
}

// Most rows one batched forward pass takes (B·T), and most sequences.
constexpr int64_t kBatchRows = 2048;
constexpr size_t kBatchSequences = 32;

// --lines: tokenize every line, then run lines of equal token count together through Model::ForwardBatch
// (one GEMM per projection over all their rows), batches spread over the threads. With windows each line runs on
// its own. A line's result depends on the input only, never on --threads.
absl::Status EmbedLines(const ModelDirectory& dir, const std::vector<std::string_view>& texts, Pooling pooling,
                        bool normalize, EmbedOptions embed_options, int threads, std::vector<TextVectors>* results) {
  const size_t n = texts.size();
  results->assign(n, TextVectors{});
  std::vector<absl::Status> errors(n);
  const bool progress = isatty(STDERR_FILENO) && n >= 100;
  std::atomic<size_t> done{0};
  std::mutex progress_mutex;
  auto finish = [&](size_t i, absl::StatusOr<TextVectors> r) {
    if (r.ok()) {
      (*results)[i] = std::move(*r);
    } else {
      errors[i] = r.status();
    }
    const size_t count = ++done;
    if (progress && (count % 50 == 0 || count == n)) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      std::fprintf(stderr, "\rembedded %zu/%zu lines", count, n);
      if (count == n) std::fprintf(stderr, "\n");
    }
  };
  auto first_error = [&]() -> absl::Status {
    for (size_t i = 0; i < n; ++i) {
      if (!errors[i].ok()) {
        return absl::Status(errors[i].code(), fmt::format("line {}: {}", i + 1, std::string(errors[i].message())));
      }
    }
    return absl::OkStatus();
  };
  embed_options.threads = 1;
  if (embed_options.window > 0) {
    ParallelFor(static_cast<int64_t>(n), threads,
                [&](int64_t i) { finish(i, EmbedOne(dir, texts[i], pooling, normalize, embed_options)); });
    return first_error();
  }
  // 1. Tokenize.
  std::vector<std::vector<uint32_t>> ids(n);
  ParallelFor(static_cast<int64_t>(n), threads, [&](int64_t i) {
    absl::StatusOr<std::vector<uint32_t>> r = dir.Tokenize(texts[i]);
    if (r.ok()) {
      ids[i] = std::move(*r);
    } else {
      errors[i] = r.status();
    }
  });
  TOKVEC_RETURN_IF_ERROR(first_error());
  // 2. Batches of lines with the same token count, in a fixed order (by length, then line number).
  std::map<size_t, std::vector<size_t>> by_length;
  for (size_t i = 0; i < n; ++i) by_length[ids[i].size()].push_back(i);
  std::vector<std::vector<size_t>> batches;
  for (const auto& [length, lines] : by_length) {
    const size_t per_batch = std::clamp<size_t>(static_cast<size_t>(kBatchRows) / std::max<size_t>(length, 1), 1,
                                                kBatchSequences);
    for (size_t b = 0; b < lines.size(); b += per_batch) {
      batches.emplace_back(lines.begin() + b, lines.begin() + std::min(lines.size(), b + per_batch));
    }
  }
  // 3. Run them: several batches side by side, or one batch at a time with every thread inside it.
  const int outer = static_cast<int64_t>(batches.size()) >= threads ? threads : 1;
  const int inner = outer == 1 ? threads : 1;
  ParallelFor(static_cast<int64_t>(batches.size()), outer, [&](int64_t b) {
    const std::vector<size_t>& lines = batches[b];
    std::vector<std::vector<uint32_t>> batch;
    for (size_t i : lines) batch.push_back(ids[i]);
    const int64_t max_len = dir.model().config().max_len;
    if (static_cast<int64_t>(batch[0].size()) > max_len) {
      for (size_t i : lines) {
        finish(i, absl::OutOfRangeError(fmt::format(
                      "{} tokens, longer than the model's maximum of {}; pass --window N --stride S to embed it in "
                      "overlapping windows (it is never truncated)",
                      batch[0].size(), max_len)));
      }
      return;
    }
    absl::StatusOr<std::vector<Matrix>> hidden = dir.model().ForwardBatch(batch, inner);
    for (size_t k = 0; k < lines.size(); ++k) {
      if (!hidden.ok()) {
        finish(lines[k], hidden.status());
        continue;
      }
      EmbeddedText embedded;
      embedded.ids = std::move(batch[k]);
      for (uint32_t id : embedded.ids) embedded.tokens.push_back(dir.tokenizer().TokenSpelling(id));
      embedded.hidden = std::move((*hidden)[k]);
      finish(lines[k], ToOutput(std::move(embedded), pooling, normalize));
    }
  });
  return first_error();
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
  // 1. Pooling: explicit, or (auto) the sentence-transformers modules, else none.
  Pooling pooling = Pooling::kNone;
  bool normalize = options.normalize;
  if (options.pooling == "auto") {
    if (dir.sentence_pooling().has_value()) {
      pooling = dir.sentence_pooling()->pooling;
      normalize = normalize || dir.sentence_pooling()->normalize;
    }
  } else {
    TOKVEC_ASSIGN_OR_RETURN(pooling, ParsePooling(options.pooling));
  }
  if (options.lines && pooling == Pooling::kNone && options.format == "npy") {
    return absl::InvalidArgumentError(fmt::format(
        "{}--format npy with --lines needs a --pooling (mean, cls, last, max): texts have different token counts",
        kUsagePrefix));
  }
  EmbedOptions embed_options;
  embed_options.window = options.window;
  embed_options.stride = options.window > 0 && options.stride == 0 ? std::max<int64_t>(1, options.window / 2)
                                                                     : options.stride;
  TOKVEC_ASSIGN_OR_RETURN(std::string input, ReadFile(options.input));

  // 2. Embed: one text with all threads, or lines spread over the threads.
  std::vector<TextVectors> results;
  if (!options.lines) {
    embed_options.threads = options.threads;
    TOKVEC_ASSIGN_OR_RETURN(TextVectors one, EmbedOne(dir, StripFinalNewline(input), pooling, normalize, embed_options));
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
    TOKVEC_RETURN_IF_ERROR(EmbedLines(dir, texts, pooling, normalize, embed_options, options.threads, &results));
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
