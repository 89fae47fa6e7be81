// tokvec search: the k rows of an index of vectors nearest each query, every row scored (exact, not approximate).
//
//   tokvec embed -m M --lines --format npy -o corpus.npy corpus.txt
//   tokvec search -i corpus.npy -m M -k 5 questions.txt          # query texts embedded with the same model
//   tokvec search -i corpus.npy -m e5 --prompt "query: " q.txt   # the model's query prompt (or --prompt-name)
//   tokvec search -i corpus.npy -k 10 --threads 2 queries.npy    # query vectors [Q, D]
//   tokvec embed -m M --lines --format npy --precision ubinary -o bits.npy corpus.txt
//   tokvec search -i bits.npy -m M questions.txt                 # Hamming, then float rescoring
//
// Output (tsv, the default): one line per hit, `query<TAB>rank<TAB>index<TAB>score`, all 0-based, best first;
// json: one object per query, {"query": q, "hits": [{"index": i, "score": s}, ...]} (JSON Lines); npy: the [Q, k]
// int64 indices; npz: `indices` and `scores` ([Q, k] float32). The index kinds, metric and tie rule:
// retrieval/vector_search.h.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/npz.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/prompt_flags.h"
#include "cli/text_lines.h"
#include "embeddings/npy.h"
#include "fmt/format.h"
#include "kernels/tensor.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "retrieval/vector_search.h"

namespace tokvec::cli {
namespace {

struct SearchCommandOptions {
  std::string index;
  std::string model;
  std::string pooling = "auto";
  PromptFlags prompt;  // query texts: as `embed --prompt`, `--truncate`, ... (cli/prompt_flags.h)
  int64_t k = 10;
  std::string metric = "cosine";
  int threads = 1;
  int64_t rescore_multiplier = 4;
  std::string format = "tsv";
  std::string output = "-";
  std::string queries = "-";
};

// Query texts, one per line (a '\r' before the '\n' dropped), embedded and pooled as `tokvec embed --lines` does.
absl::StatusOr<Matrix> EmbedQueries(const SearchCommandOptions& options, std::string_view text) {
  TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load(options.model));
  TOKVEC_ASSIGN_OR_RETURN(PoolingChoice choice, ChoosePooling(dir, options.pooling, /*normalize=*/false));
  if (choice.pooling == Pooling::kNone) {
    return absl::InvalidArgumentError(fmt::format(
        "{}the model has no sentence-transformers pooling: name one with --pooling (mean, cls, last, max)",
        kUsagePrefix));
  }
  EmbedTextsOptions embed_options;
  TOKVEC_RETURN_IF_ERROR(ApplyPromptFlags(options.prompt, dir, choice, options.pooling == "auto", &embed_options));
  embed_options.pooling = choice.pooling;
  embed_options.normalize = choice.normalize;
  embed_options.dense = choice.dense;
  embed_options.threads = options.threads;
  embed_options.item_name = "query";
  std::vector<std::string_view> lines;
  AppendLines(text, &lines);
  TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> vectors, EmbedTexts(dir, lines, embed_options));
  return StackVectors(vectors, OutputWidth(dir, choice));
}

absl::Status RunSearch(const SearchCommandOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(const Metric metric, ParseMetric(options.metric));
  TOKVEC_ASSIGN_OR_RETURN(VectorIndex index, VectorIndex::Open(options.index));
  TOKVEC_ASSIGN_OR_RETURN(std::string input, ReadFile(options.queries));
  Matrix queries;
  if (input.starts_with("\x93NUMPY")) {  // query vectors
    if (!options.model.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}the queries are vectors (.npy): --model is for query texts",
                                                    kUsagePrefix));
    }
    auto view = ParseNpyFloat32Matrix(input);
    if (!view.ok()) {
      return absl::InvalidArgumentError(fmt::format("{}: {}", options.queries, std::string(view.status().message())));
    }
    queries = Matrix(view->rows, view->cols);
    std::memcpy(queries.data(), input.data() + view->data_offset, static_cast<size_t>(queries.size()) * sizeof(float));
  } else {
    if (options.model.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}query texts need --model (the model that embedded the index); query vectors come as a .npy",
          kUsagePrefix));
    }
    TOKVEC_ASSIGN_OR_RETURN(queries, EmbedQueries(options, input));
  }
  const absl::StatusOr<IndexKind> kind = KindOfSearch(queries.cols(), index);
  if (!kind.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", options.index, std::string(kind.status().message())));
  }
  TOKVEC_ASSIGN_OR_RETURN(
      std::vector<std::vector<SearchHit>> hits,
      Search(queries.view(), index,
             {.k = options.k, .metric = metric, .threads = options.threads,
              .rescore_multiplier = options.rescore_multiplier}));

  std::string out;
  if (options.format == "tsv") {
    for (size_t q = 0; q < hits.size(); ++q) {
      for (size_t r = 0; r < hits[q].size(); ++r) {
        out += fmt::format("{}\t{}\t{}\t{}\n", q, r, hits[q][r].index, hits[q][r].score);
      }
    }
  } else if (options.format == "json") {
    for (size_t q = 0; q < hits.size(); ++q) {
      out += fmt::format("{{\"query\": {}, \"hits\": [", q);
      for (size_t r = 0; r < hits[q].size(); ++r) {
        out += fmt::format("{}{{\"index\": {}, \"score\": {}}}", r > 0 ? ", " : "", hits[q][r].index,
                           hits[q][r].score);
      }
      out += "]}\n";
    }
  } else {
    const int64_t k = hits.empty() ? 0 : static_cast<int64_t>(hits[0].size());  // min(k, rows) for every query
    std::vector<int64_t> indices;
    std::vector<float> scores;
    for (const auto& row : hits) {
      for (const SearchHit& hit : row) indices.push_back(hit.index), scores.push_back(hit.score);
    }
    const std::vector<int64_t> shape = {static_cast<int64_t>(hits.size()), k};
    if (options.format == "npy") {
      out = NpyArray("<i8", shape, AsBytes(indices));
    } else {
      TOKVEC_ASSIGN_OR_RETURN(out, NpzArchive({{"indices", NpyArray("<i8", shape, AsBytes(indices))},
                                               {"scores", NpyArray("<f4", shape, AsBytes(scores))}}));
    }
  }
  return WriteFileAtomically(options.output, out);
}

}  // namespace

void RegisterSearchCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<SearchCommandOptions>();
  CLI::App* sub = app.add_subcommand("search", "Exact top-k nearest rows of a vector index (.npy) for each query");
  sub->add_option("-i,--index", options->index,
                  "The index: float32 [N, D] vectors, or uint8/int8 codes from `embed --precision` ([N, D] int8/uint8, "
                  "[N, D/8] binary/ubinary); memory-mapped")
      ->required();
  sub->add_option("-m,--model", options->model, "Model directory to embed query texts with (not for .npy queries)");
  sub->add_option("--pooling", options->pooling,
                  "Query pooling: auto (the model's sentence-transformers modules) | mean | cls | last | max")
      ->check(CLI::IsMember({"auto", "mean", "cls", "last", "max"}))
      ->capture_default_str();
  AddPromptFlags(sub, &options->prompt, "Query texts: ");
  sub->add_option("-k", options->k, "Hits per query")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  sub->add_option("--metric", options->metric,
                  "cosine | dot, for float32 indexes (codes: dot; binary: Hamming then rescoring)")
      ->check(CLI::IsMember({"cosine", "dot"}))
      ->capture_default_str();
  sub->add_option("--rescore-multiplier", options->rescore_multiplier,
                  "Binary indexes: keep k*M nearest by Hamming distance, then rescore them with the float query "
                  "(0: rank by Hamming distance alone)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  sub->add_option("--threads", options->threads, "Worker threads")->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_option("--format", options->format,
                  "tsv (query, rank, index, score per line) | json (JSON Lines per query) | npy ([Q, k] indices) | "
                  "npz (indices and scores)")
      ->check(CLI::IsMember({"tsv", "json", "npy", "npz"}))
      ->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output file ('-' = standard output)")->capture_default_str();
  sub->add_option("queries", options->queries,
                  "Queries: a .npy of float32 vectors [Q, D], or text (one query per line, needs --model); '-' or "
                  "none: standard input");
  sub->callback([options, action] { *action = [options] { return RunSearch(*options); }; });
}

}  // namespace tokvec::cli
