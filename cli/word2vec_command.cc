// tokvec word2vec: learn word (or token) vectors with skip-gram or CBOW, and query and evaluate vector files.
//
//   tokvec word2vec train --arch skipgram --loss ns --threads 2 -o vectors.bin corpus.txt
//   tokvec word2vec train --tokenizer data/model.tokvec --deterministic --threads 8 -o tokens.txt corpus.txt
//   tokvec word2vec similar -v vectors.bin king queen -k 5
//   tokvec word2vec analogy -v vectors.bin man king woman          # king - man + woman
//   tokvec word2vec evaluate -v vectors.bin --analogies questions-words.txt --max-words 30000
//   tokvec word2vec evaluate -v vectors.bin --similarity simlex.txt --json
//
// The trainer is word2vec/trainer.h (formulas of Mikolov et al. 2013a/b as word2vec.c computes them); vector files
// are word2vec's text (`.txt`, `.vec`) or binary (`.bin`) format, chosen by -o's extension and recognised by
// content when read, so files of word2vec.c, gensim and fastText work too.
//
// Token vectors (--tokenizer at training): each row is a token, spelled as the tokenizer spells it (`Ġcat`); the
// file does not record the tokenizer, so `similar` and `analogy` take --tokenizer again, encode each query word
// and use the mean of its tokens' vectors.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"
#include "word2vec/evaluate.h"
#include "word2vec/query_vector.h"
#include "word2vec/trainer.h"
#include "word2vec/vectors.h"
#include "word2vec/vocabulary.h"

namespace tokvec::cli {
namespace {

using word2vec::Normalize;
using word2vec::QueryVector;
using word2vec::UnitVectors;
using word2vec::Vectors;

struct Word2VecOptions {
  // train
  std::string arch = "skipgram";
  std::string loss = "ns";
  int64_t dim = 100;
  int64_t window = 5;
  int64_t negative = 5;
  double sample = 1e-3;
  int64_t min_count = 5;
  int64_t max_vocab = 0;
  int64_t epochs = 5;
  double alpha = 0;
  std::string tokenizer;
  int threads = 1;
  bool deterministic = false;
  uint64_t seed = 1;
  std::string output;
  std::vector<std::string> inputs;
  // queries
  std::string vectors;
  std::vector<std::string> words;
  int64_t k = 0;
  // evaluate
  std::string analogies;
  std::vector<std::string> similarity;
  int64_t max_words = 0;
  bool case_sensitive = false;
  bool json = false;
};

absl::Status RunTrain(const Word2VecOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  const bool terminal = isatty(STDERR_FILENO) == 1;
  // 1. The corpus as ids.
  word2vec::VocabularyOptions vocab_options{.min_count = o.min_count, .max_vocab = o.max_vocab};
  word2vec::Corpus corpus;
  if (o.tokenizer.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(corpus, word2vec::ReadWordCorpus(o.inputs, vocab_options));
  } else {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::Load(o.tokenizer));
    TOKVEC_ASSIGN_OR_RETURN(corpus, word2vec::ReadTokenCorpus(o.inputs, *tokenizer, vocab_options));
  }
  const double read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // 2. Train.
  word2vec::TrainOptions options{
      .arch = o.arch == "cbow" ? word2vec::Arch::kCbow : word2vec::Arch::kSkipGram,
      .loss = o.loss == "hs" ? word2vec::Loss::kHierarchical : word2vec::Loss::kNegative,
      .dim = o.dim,
      .window = o.window,
      .negative = o.negative,
      .sample = o.sample,
      .epochs = o.epochs,
      .alpha = o.alpha,
      .threads = o.threads,
      .deterministic = o.deterministic,
      .seed = o.seed,
  };
  if (terminal) {
    options.progress = [](double fraction, double alpha, double words_per_second) {
      std::fprintf(stderr, "\rword2vec: %5.1f%%  alpha %.6f  %.0f words/s   ", fraction * 100, alpha,
                   words_per_second);
    };
  }
  const auto train_start = std::chrono::steady_clock::now();
  TOKVEC_ASSIGN_OR_RETURN(std::vector<float> input, word2vec::Train(corpus, options));
  const double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - train_start).count();
  if (terminal) std::fprintf(stderr, "\n");
  // 3. Save.
  Vectors vectors{std::move(corpus.vocab.words), o.dim, std::move(input)};
  TOKVEC_RETURN_IF_ERROR(word2vec::WriteVectors(o.output, vectors));
  const double words = static_cast<double>(corpus.ids.size()) * static_cast<double>(o.epochs);
  std::fprintf(stderr,
               "wrote %s: %zu words x %lld dims; %zu words of text x %lld epochs; read %.2f s, trained %.2f s "
               "(%.0f words/s, %d thread%s%s)\n",
               o.output.c_str(), vectors.size(), static_cast<long long>(o.dim), corpus.ids.size(),
               static_cast<long long>(o.epochs), read_seconds, train_seconds, words / train_seconds, o.threads,
               o.threads == 1 ? "" : "s", o.deterministic ? ", deterministic" : ", Hogwild");
  return absl::OkStatus();
}

absl::Status PrintNeighbours(const std::string& label, const UnitVectors& unit, const std::vector<word2vec::Neighbour>& best) {
  std::string out;
  for (const auto& n : best) out += fmt::format("{}\t{}\t{:.4f}\n", label, unit.word(n.row), n.cosine);
  return WriteAll(stdout, out);
}

absl::Status RunSimilar(const Word2VecOptions& o) {
  TOKVEC_ASSIGN_OR_RETURN(Vectors vectors, word2vec::ReadVectors(o.vectors));
  std::unique_ptr<Tokenizer> tokenizer;
  if (!o.tokenizer.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(tokenizer, Tokenizer::Load(o.tokenizer));
  }
  UnitVectors unit(vectors);
  for (const std::string& word : o.words) {
    std::vector<int64_t> rows;
    TOKVEC_ASSIGN_OR_RETURN(std::vector<float> query, QueryVector(unit, tokenizer.get(), word, o.vectors, &rows));
    Normalize(query);
    TOKVEC_RETURN_IF_ERROR(PrintNeighbours(word, unit, unit.Nearest(query.data(), o.k > 0 ? o.k : 10, rows)));
  }
  return absl::OkStatus();
}

absl::Status RunAnalogy(const Word2VecOptions& o) {
  if (o.words.size() != 3) {
    return absl::InvalidArgumentError(fmt::format(
        "{}analogy takes three words A B C (A is to B as C is to ?), got {}", kUsagePrefix, o.words.size()));
  }
  TOKVEC_ASSIGN_OR_RETURN(Vectors vectors, word2vec::ReadVectors(o.vectors));
  std::unique_ptr<Tokenizer> tokenizer;
  if (!o.tokenizer.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(tokenizer, Tokenizer::Load(o.tokenizer));
  }
  UnitVectors unit(vectors);
  std::vector<int64_t> rows;
  std::vector<std::vector<float>> v;
  for (const std::string& word : o.words) {
    TOKVEC_ASSIGN_OR_RETURN(std::vector<float> q, QueryVector(unit, tokenizer.get(), word, o.vectors, &rows));
    Normalize(q);
    v.push_back(std::move(q));
  }
  // 3CosAdd (Mikolov et al. 2013c, "Linguistic Regularities in Continuous Space Word Representations"): B - A + C.
  std::vector<float> query(static_cast<size_t>(unit.dim()));
  for (size_t d = 0; d < query.size(); ++d) query[d] = v[1][d] - v[0][d] + v[2][d];
  Normalize(query);
  return PrintNeighbours(o.words[1] + "-" + o.words[0] + "+" + o.words[2], unit,
                         unit.Nearest(query.data(), o.k > 0 ? o.k : 5, rows));
}

std::string Percent(int64_t correct, int64_t answered) {
  return answered > 0 ? fmt::format("{:.2f}%", 100.0 * static_cast<double>(correct) / static_cast<double>(answered))
                      : "n/a";
}

absl::Status RunEvaluate(const Word2VecOptions& o) {
  if (o.analogies.empty() && o.similarity.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}evaluate needs --analogies FILE and/or --similarity FILE", kUsagePrefix));
  }
  TOKVEC_ASSIGN_OR_RETURN(Vectors vectors, word2vec::ReadVectors(o.vectors));
  UnitVectors unit(vectors, o.max_words);
  std::string out;
  nlohmann::json json = nlohmann::json::object();
  if (!o.analogies.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(o.analogies));
    TOKVEC_ASSIGN_OR_RETURN(word2vec::AnalogyReport report,
                            word2vec::EvaluateAnalogies(unit, text, o.analogies,
                                                        {.case_sensitive = o.case_sensitive, .threads = o.threads}));
    out += fmt::format("analogies {} ({} words{}, {}):\n", o.analogies, unit.size(),
                       o.max_words > 0 ? fmt::format(", the first {}", o.max_words) : "",
                       o.case_sensitive ? "case-sensitive" : "upper-cased as compute-accuracy");
    nlohmann::json sections = nlohmann::json::array();
    auto line = [&](const word2vec::AnalogySection& s) {
      out += fmt::format("  {:<28} {:>7}  ({} of {} answered, {} questions)\n", s.name + ":",
                         Percent(s.correct, s.answered), s.correct, s.answered, s.questions);
      return nlohmann::json{{"section", s.name},
                            {"correct", s.correct},
                            {"answered", s.answered},
                            {"questions", s.questions},
                            {"accuracy", s.answered > 0 ? static_cast<double>(s.correct) / static_cast<double>(s.answered) : 0.0}};
    };
    for (const auto& s : report.sections) sections.push_back(line(s));
    json["analogies"] = {{"file", o.analogies},
                         {"sections", sections},
                         {"semantic", line(report.semantic)},
                         {"syntactic", line(report.syntactic)},
                         {"total", line(report.total)}};
  }
  nlohmann::json sims = nlohmann::json::array();
  for (const std::string& file : o.similarity) {
    TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
    TOKVEC_ASSIGN_OR_RETURN(word2vec::SimilarityReport report,
                            word2vec::EvaluateSimilarity(unit, text, file, o.case_sensitive));
    out += fmt::format("similarity {}: spearman {:.4f} ({} of {} pairs)\n", file, report.spearman, report.used,
                       report.pairs);
    sims.push_back({{"file", file}, {"spearman", report.spearman}, {"used", report.used}, {"pairs", report.pairs}});
  }
  if (!o.similarity.empty()) json["similarity"] = sims;
  return WriteAll(stdout, o.json ? json.dump() + "\n" : out);
}

}  // namespace

void RegisterWord2VecCommand(CLI::App& app, CommandAction* action) {
  auto o = std::make_shared<Word2VecOptions>();
  CLI::App* w2v = app.add_subcommand("word2vec", "Learn word or token vectors (skip-gram, CBOW) and query them");
  w2v->require_subcommand(1);

  CLI::App* train = w2v->add_subcommand("train", "Train vectors on text (word2vec.c's method; Hogwild or deterministic)");
  train->add_option("--arch", o->arch, "skipgram or cbow")->check(CLI::IsMember({"skipgram", "cbow"}))->capture_default_str();
  train->add_option("--loss", o->loss, "ns (negative sampling) or hs (hierarchical softmax)")
      ->check(CLI::IsMember({"ns", "hs"}))
      ->capture_default_str();
  train->add_option("--dim", o->dim, "Vector size")->check(CLI::Range(int64_t{1}, word2vec::kMaxDim))->capture_default_str();
  train->add_option("--window", o->window, "Largest context distance")->check(CLI::Range(1, 1000))->capture_default_str();
  train->add_option("--negative", o->negative, "Negative samples per target (ns)")->check(CLI::Range(1, 1000))->capture_default_str();
  train->add_option("--sample", o->sample, "Subsampling threshold for frequent words (0: off)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  train->add_option("--min-count", o->min_count, "Drop words seen fewer times")->check(CLI::NonNegativeNumber)->capture_default_str();
  train->add_option("--max-vocab", o->max_vocab, "Keep at most this many words (0: all)")->check(CLI::NonNegativeNumber);
  train->add_option("--epochs", o->epochs, "Passes over the text")->check(CLI::Range(1, 10000))->capture_default_str();
  train->add_option("--alpha", o->alpha, "Starting learning rate (default 0.025 skipgram, 0.05 cbow)")
      ->check(CLI::Range(0.0, 10.0));
  train->add_option("--tokenizer", o->tokenizer, "Train on the tokens of this tokenizer instead of whitespace words");
  train->add_option("--threads", o->threads, "Worker threads")->check(CLI::Range(1, 256))->capture_default_str();
  train->add_flag("--deterministic", o->deterministic, "Byte-identical vectors for any --threads (slower than Hogwild)");
  train->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  train->add_option("-o,--output", o->output, "Vector file: .bin binary, otherwise text")->required();
  train->add_option("FILE", o->inputs, "Text files (read as one text)")->required();
  train->callback([o, action] { *action = [o] { return RunTrain(*o); }; });

  CLI::App* similar = w2v->add_subcommand("similar", "Nearest neighbours by cosine");
  similar->add_option("-v,--vectors", o->vectors, "Vector file (word2vec text or binary)")->required();
  similar->add_option("WORD", o->words, "Words to look up")->required();
  similar->add_option("-k", o->k, "Neighbours per word (default 10)")->check(CLI::Range(1, 100000));
  similar->add_option("--tokenizer", o->tokenizer, "For token vectors: a word is the mean of its tokens");
  similar->callback([o, action] { *action = [o] { return RunSimilar(*o); }; });

  CLI::App* analogy = w2v->add_subcommand("analogy", "A is to B as C is to ? (3CosAdd: B - A + C)");
  analogy->add_option("-v,--vectors", o->vectors, "Vector file (word2vec text or binary)")->required();
  analogy->add_option("WORDS", o->words, "A B C")->required()->expected(3);
  analogy->add_option("-k", o->k, "Answers (default 5)")->check(CLI::Range(1, 100000));
  analogy->add_option("--tokenizer", o->tokenizer, "For token vectors: a word is the mean of its tokens");
  analogy->callback([o, action] { *action = [o] { return RunAnalogy(*o); }; });

  CLI::App* evaluate = w2v->add_subcommand("evaluate", "Analogy accuracy and similarity correlation");
  evaluate->add_option("-v,--vectors", o->vectors, "Vector file (word2vec text or binary)")->required();
  evaluate->add_option("--analogies", o->analogies, "questions-words.txt style file");
  evaluate->add_option("--similarity", o->similarity, "`word1 word2 score` file(s)");
  evaluate->add_option("--max-words", o->max_words, "Use only the first N vectors (compute-accuracy: 30000; 0: all)")
      ->check(CLI::NonNegativeNumber);
  evaluate->add_flag("--case-sensitive", o->case_sensitive, "Compare words exactly (default: ASCII upper case)");
  evaluate->add_option("--threads", o->threads, "Worker threads")->check(CLI::Range(1, 256))->capture_default_str();
  evaluate->add_flag("--json", o->json, "One JSON object on standard output");
  evaluate->callback([o, action] { *action = [o] { return RunEvaluate(*o); }; });
}

}  // namespace tokvec::cli
