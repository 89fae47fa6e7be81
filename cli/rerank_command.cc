// tokvec rerank: documents ordered by a cross-encoder's relevance to a query (pipeline/cross_encoder.h).
//
//   tokvec rerank -m ms-marco-MiniLM-L6-v2 --query "how big is the moon?" passages.txt
//   tokvec rerank -m bge-reranker-base --query "..." --top-k 3 --raw-scores --format json passages.txt
//
// Input: one document per line (a '\r' before the '\n' dropped). Output (tsv, the default): one line per document,
// best first, `index<TAB>score<TAB>text` (index: the 0-based line); json: one object per line, {"index", "score",
// "text"} (JSON Lines). Scores: the sigmoid of a one-label model's logit, as sentence-transformers' CrossEncoder
// and TEI's /rerank give them (--raw-scores: the logit); a model with several labels scores by its first label.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/text_lines.h"
#include "cli/usage_error.h"
#include "fmt/format.h"
#include "pipeline/cross_encoder.h"
#include "tokenizer/models/vocab_json.h"

namespace tokvec::cli {
namespace {

struct RerankOptions {
  std::string model;
  std::string query;
  int64_t top_k = 0;
  bool raw_scores = false;
  std::string format = "tsv";
  int threads = 1;
  std::string output = "-";
  std::string input = "-";
};

absl::Status RunRerank(const RerankOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(options.input));
  std::vector<std::string_view> documents;
  AppendLines(text, &documents);
  TOKVEC_ASSIGN_OR_RETURN(CrossEncoder ranker, CrossEncoder::Load(options.model));
  const std::vector<std::string_view> queries(documents.size(), options.query);
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::vector<float>> logits,
                          ranker.Logits(queries, documents, options.threads));
  const std::vector<RankedDocument> ranked =
      RankDocuments(logits, options.raw_scores, static_cast<size_t>(options.top_k));
  std::string out;
  for (const RankedDocument& doc : ranked) {
    if (options.format == "tsv") {
      out += fmt::format("{}\t{}\t{}\n", doc.index, doc.score, documents[doc.index]);
    } else {
      out += fmt::format("{{\"index\": {}, \"score\": {}, \"text\": {}}}\n", doc.index, doc.score,
                         JsonString(documents[doc.index]));
    }
  }
  return WriteFileAtomically(options.output, out);
}

}  // namespace

void RegisterRerankCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<RerankOptions>();
  CLI::App* sub = app.add_subcommand("rerank", "Order documents (one per line) by a cross-encoder's score for a query");
  sub->add_option("-m,--model", options->model,
                  "Cross-encoder directory (config.json naming a *ForSequenceClassification head, model.safetensors, "
                  "tokenizer)")
      ->required();
  sub->add_option("-q,--query", options->query, "The query every document is scored against")->required();
  sub->add_option("-k,--top-k", options->top_k, "Keep the K best documents (0: all)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
  sub->add_flag("--raw-scores", options->raw_scores, "Logits instead of sigmoid scores");
  sub->add_option("--format", options->format, "tsv (index, score, text per line) | json (JSON Lines)")
      ->check(CLI::IsMember({"tsv", "json"}))
      ->capture_default_str();
  sub->add_option("--threads", options->threads, "Worker threads")->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_option("-o,--output", options->output, "Output file ('-' = standard output)")->capture_default_str();
  sub->add_option("documents", options->input, "Documents, one per line ('-' or none: standard input)");
  sub->callback([options, action] { *action = [options] { return RunRerank(*options); }; });
}

}  // namespace tokvec::cli
