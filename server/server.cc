#include "server/server.h"

#include <algorithm>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "httplib.h"
#include "kernels/low_precision_linear.h"
#include "nlohmann/json.hpp"
#include "pipeline/cross_encoder.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "pipeline/sentence_transformers_config.h"
#include "retrieval/quantize.h"
#include "retrieval/vector_search.h"
#include "server/api.h"
#include "server/batcher.h"
#include "server/metrics.h"
#include "server/viewer_page.h"
#include "tokenizer/batch/encode_texts.h"
#include "tokenizer/readable_token.h"

namespace tokvec::server {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// What one request's log line needs beyond the request and response: filled by the handler on the thread that
// serves the connection, read by the logger on the same thread after the response is written.
struct RequestLog {
  Clock::time_point start;
  bool started = false;
  std::string model;
  int64_t tokens = -1;
};
thread_local RequestLog request_log;

std::string Dump(const Json& json) { return json.dump(-1, ' ', false, Json::error_handler_t::replace); }

// A served model: the directory, its pooling and its batcher.
struct ServedModel {
  std::string name;
  std::unique_ptr<ModelDirectory> dir;
  PoolingChoice choice;
  // A cross-encoder's or classifier's head (models/sequence_classifier.h), for /rerank; else why there is none.
  // Declared before the batcher, whose queued jobs point at it, so that it outlives them.
  absl::StatusOr<SequenceClassifier> head = absl::InvalidArgumentError("not loaded");
  std::unique_ptr<Batcher> batcher;
};

}  // namespace

struct Server::Impl {
  ServerOptions options;
  std::vector<std::unique_ptr<ServedModel>> models;  // in command-line order
  Metrics metrics;
  httplib::Server http;
  std::optional<VectorIndex> index;  // --index, for /search
  int listen_socket = -1;  // set by httplib's socket_options callback before it binds
  std::mutex log_mutex;

  // The model a request names; the only one when it names none.
  absl::StatusOr<const ServedModel*> FindModel(const std::string& name) const {
    if (name.empty()) {
      if (models.size() == 1) return models[0].get();
      return absl::InvalidArgumentError(fmt::format("'model' is missing; this server has {} models: {}",
                                                    models.size(), ModelNames()));
    }
    for (const auto& m : models) {
      if (m->name == name) return m.get();
    }
    return absl::NotFoundError(fmt::format("model '{}' is not served here; the models are {}", name, ModelNames()));
  }
  std::string ModelNames() const {
    std::string names;
    for (const auto& m : models) names += (names.empty() ? "" : ", ") + m->name;
    return names;
  }
  int64_t MaxInputTokens(const ServedModel& m) const {
    const int64_t max_len = m.dir->model().config().max_len;
    return options.max_input_tokens > 0 ? std::min(options.max_input_tokens, max_len) : max_len;
  }

  // The ids of the text inputs of a request (ids inputs are skipped), each text on its own, through the library's
  // batch encoder (tokenizer/batch/encode_texts.h). On the connection's thread: connections already run side by
  // side on the HTTP pool, and a request's tokenizing is small beside embedding it.
  static EncodedTexts EncodeTextInputs(const ServedModel& m, const std::vector<EmbeddingInput>& inputs) {
    std::vector<std::string_view> texts;
    for (const EmbeddingInput& input : inputs) {
      if (!input.is_ids) texts.push_back(input.text);
    }
    return EncodeTexts(m.dir->tokenizer(), texts, {}, /*pool=*/nullptr);
  }

  // An input's ids with the model's special tokens, checked against the vocabulary and the length limit (cut
  // when `truncate`, keeping the special tokens at both ends). A text input's ids come from EncodeTextInputs:
  // `encoded` and the input's place among the texts.
  absl::StatusOr<std::vector<uint32_t>> InputIds(const ServedModel& m, const EmbeddingInput& input, size_t index,
                                                 Truncation truncate, const EncodedTexts& encoded,
                                                 size_t text_index) const {
    const ModelDirectory& dir = *m.dir;
    std::vector<uint32_t> ids;
    if (input.is_ids) {
      const int64_t vocab_size = std::min<int64_t>(dir.model().config().vocab_size, dir.tokenizer().vocab_size());
      for (size_t k = 0; k < input.ids.size(); ++k) {
        if (input.ids[k] >= vocab_size) {
          return absl::InvalidArgumentError(fmt::format("input {}: token id {} (at {}) is outside the vocabulary of "
                                                        "model '{}' (ids 0 to {})",
                                                        index, input.ids[k], k, m.name, vocab_size - 1));
        }
      }
      ids = dir.WithSpecialTokens(input.ids);
    } else {
      const absl::Status& error = encoded.errors[text_index];
      if (!error.ok()) return absl::InvalidArgumentError(fmt::format("input {}: {}", index, std::string(error.message())));
      ids = dir.WithSpecialTokens(encoded.ids[text_index]);
    }
    const int64_t limit = MaxInputTokens(m);
    if (static_cast<int64_t>(ids.size()) > limit) {
      if (truncate == Truncation::kNone) {
        return absl::OutOfRangeError(fmt::format(
            "input {} is {} tokens, more than the {} this server accepts for model '{}'; shorten it or send "
            "\"truncate\": true to embed its first {} tokens",
            index, ids.size(), limit, m.name, limit));
      }
      TOKVEC_RETURN_IF_ERROR(TruncateIds(dir, truncate, limit, &ids));  // special tokens kept
    }
    return ids;
  }

  // A request's inputs as sequences to embed, and how to pool them: the prompt (the request's prompt_name, else
  // the server's, else the model's default) before each text input, truncation, the pooling asked for (kNone
  // for per-token vectors).
  struct Prepared {
    std::vector<std::vector<uint32_t>> sequences;
    int64_t tokens = 0;
    PoolRequest pool;
    int64_t width = 0;  // of each vector: d_model, or the last Dense module's out_features
  };
  absl::StatusOr<Prepared> Prepare(const ServedModel& m, const EmbeddingsRequest& request, bool per_token) const {
    const ModelDirectory& dir = *m.dir;
    TOKVEC_ASSIGN_OR_RETURN(
        const std::string prompt,
        ChoosePrompt(dir.sentence_config(), std::nullopt,
                     request.prompt_name.empty() ? options.prompt_name : request.prompt_name, /*use_default=*/true));
    Prepared out;
    PoolingChoice choice = m.choice;
    if (!per_token && !request.pooling.empty()) {  // the transformer's pooled vectors, without Dense modules
      TOKVEC_ASSIGN_OR_RETURN(choice.pooling, ParsePooling(request.pooling));
      choice.dense = nullptr;
    }
    if (request.normalize.has_value()) choice.normalize = *request.normalize;
    if (per_token) choice = {.pooling = Pooling::kNone, .normalize = false};  // TEI's /embed_all: raw hidden states
    if (!per_token && choice.pooling == Pooling::kNone) {
      return absl::InvalidArgumentError(fmt::format(
          "model '{}' has no pooling (no sentence-transformers modules.json), so it gives a vector per token, "
          "not per input; send \"pooling\": \"mean\" (or cls, last, max), start the server with --pooling, or "
          "use /embed_all",
          m.name));
    }
    TOKVEC_ASSIGN_OR_RETURN(out.pool.pool_skip,
                            PromptPoolingSkip(dir, choice, request.pooling.empty() && options.pooling == "auto",
                                              prompt));
    out.pool.pooling = choice.pooling;
    out.pool.normalize = choice.normalize;
    out.pool.dense = choice.dense;
    out.width = OutputWidth(dir, choice);
    Truncation truncate = Truncation::kNone;
    if (request.truncate.value_or(options.auto_truncate)) {
      truncate = request.truncation_direction == "left" ? Truncation::kLeft : Truncation::kRight;
    }
    std::vector<EmbeddingInput> prompted;  // copies only when there is a prompt to put before the texts
    if (!prompt.empty()) {
      prompted = request.inputs;
      for (EmbeddingInput& input : prompted) {
        if (!input.is_ids) input.text = prompt + input.text;
      }
    }
    const std::vector<EmbeddingInput>& inputs = prompt.empty() ? request.inputs : prompted;
    const EncodedTexts encoded = EncodeTextInputs(m, inputs);
    for (size_t i = 0, text = 0; i < inputs.size(); ++i) {
      const size_t text_index = inputs[i].is_ids ? 0 : text++;
      TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, InputIds(m, inputs[i], i, truncate, encoded, text_index));
      out.tokens += static_cast<int64_t>(ids.size());
      out.sequences.push_back(std::move(ids));
    }
    return out;
  }

  // Embeds a request's inputs: pooled vectors [1, D] (or [T, D] per token), cut to `dimensions` when asked.
  absl::StatusOr<std::vector<TextVectors>> EmbedRequest(const ServedModel& m, const EmbeddingsRequest& request,
                                                        bool per_token) {
    TOKVEC_ASSIGN_OR_RETURN(Prepared prepared, Prepare(m, request, per_token));
    const int64_t d = prepared.width;
    if (request.dimensions.has_value() && (*request.dimensions < 1 || *request.dimensions > d)) {
      return absl::InvalidArgumentError(fmt::format(
          "'dimensions' is {}; model '{}' gives {}-dimensional vectors, so it must be 1 to {}", *request.dimensions,
          m.name, d, d));
    }
    request_log.tokens = prepared.tokens;
    TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> results,
                            m.batcher->Embed(std::move(prepared.sequences), prepared.pool));
    metrics.ObserveTokens(prepared.tokens);
    if (request.dimensions.has_value() && *request.dimensions < d) {  // all of them: the vectors as they are
      for (TextVectors& r : results) {
        TOKVEC_ASSIGN_OR_RETURN(r.vectors, TruncateDimensions(r.vectors.view(), *request.dimensions));
      }
    }
    return results;
  }

  // The request's pooled vectors as sentence-transformers' codes (int8/uint8 ranges from these vectors), one
  // JSON array of integers each.
  static absl::StatusOr<std::vector<std::string>> QuantizedRows(const std::vector<TextVectors>& results,
                                                                std::string_view precision_name) {
    TOKVEC_ASSIGN_OR_RETURN(const Precision precision, ParsePrecision(precision_name));
    const Matrix all = StackVectors(results, results[0].vectors.cols());
    TOKVEC_ASSIGN_OR_RETURN(QuantizedMatrix q, Quantize(all.view(), precision, nullptr));
    std::vector<std::string> rows;
    for (int64_t r = 0; r < q.rows; ++r) rows.push_back(QuantizedRowJson(q, r));
    return rows;
  }

  // POST /v1/embeddings (OpenAI's shape).
  absl::StatusOr<std::string> Embeddings(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(EmbeddingsRequest request, ParseEmbeddingsRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    const bool quantized = !request.precision.empty() && request.precision != "float32";
    if (quantized && request.format == EncodingFormat::kBase64) {
      return absl::InvalidArgumentError(
          "'precision' gives integer arrays: send \"encoding_format\": \"float\" with it (OpenAI's clients ask for "
          "base64 unless told)");
    }
    TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> results, EmbedRequest(*m, request, /*per_token=*/false));
    std::vector<std::string> rows;
    if (quantized) {
      TOKVEC_ASSIGN_OR_RETURN(rows, QuantizedRows(results, request.precision));
    } else {
      for (const TextVectors& r : results) {
        rows.push_back(EncodeEmbedding(r.vectors.data(), r.vectors.cols(), request.format));
      }
    }
    std::string out = R"({"object":"list","data":[)";
    for (size_t i = 0; i < rows.size(); ++i) {
      fmt::format_to(std::back_inserter(out), R"({}{{"object":"embedding","index":{},"embedding":{}}})",
                     i > 0 ? "," : "", i, rows[i]);
    }
    fmt::format_to(std::back_inserter(out), R"(],"model":{},"usage":{{"prompt_tokens":{},"total_tokens":{}}}}})",
                   Dump(m->name), request_log.tokens, request_log.tokens);
    return out;
  }

  // POST /embed (text-embeddings-inference's shape: [[floats], ...]; normalize defaults to true there).
  absl::StatusOr<std::string> EmbedTei(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(EmbeddingsRequest request, ParseEmbeddingsRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    if (!request.normalize.has_value()) request.normalize = true;
    TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> results, EmbedRequest(*m, request, /*per_token=*/false));
    if (!request.precision.empty() && request.precision != "float32") {
      TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string> rows, QuantizedRows(results, request.precision));
      std::string out = "[";
      for (size_t i = 0; i < rows.size(); ++i) out += (i > 0 ? "," : "") + rows[i];
      return out + "]";
    }
    std::string out = "[";
    for (size_t i = 0; i < results.size(); ++i) {
      out += (i > 0 ? "," : "") + EncodeEmbedding(results[i].vectors.data(), results[i].vectors.cols(),
                                                  EncodingFormat::kFloat);
    }
    return out + "]";
  }

  // POST /embed_all (TEI's shape: per input, every token's vector, special tokens included).
  absl::StatusOr<std::string> EmbedAll(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(EmbeddingsRequest request, ParseEmbeddingsRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    if (!request.pooling.empty() || request.dimensions.has_value() ||
        (!request.precision.empty() && request.precision != "float32")) {
      return absl::InvalidArgumentError("/embed_all gives every token's vector: 'pooling', 'dimensions' and "
                                        "'precision' are for /embed and /v1/embeddings");
    }
    TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> results, EmbedRequest(*m, request, /*per_token=*/true));
    std::string out = "[";
    for (size_t i = 0; i < results.size(); ++i) {
      out += i > 0 ? ",[" : "[";
      const Matrix& v = results[i].vectors;
      for (int64_t t = 0; t < v.rows(); ++t) {
        out += (t > 0 ? "," : "") + EncodeEmbedding(v.row(t), v.cols(), EncodingFormat::kFloat);
      }
      out += "]";
    }
    return out + "]";
  }

  // POST /search: the --index rows nearest each query (texts embedded as /v1/embeddings does, or vectors).
  absl::StatusOr<std::string> Search(const std::string& body) {
    if (!index.has_value()) {
      return absl::InvalidArgumentError("this server has no index to search; start it with --index FILE.npy");
    }
    TOKVEC_ASSIGN_OR_RETURN(SearchRequest request, ParseSearchRequest(body));
    Matrix queries;
    std::string model_name;
    if (!request.vectors.empty()) {
      queries = Matrix(static_cast<int64_t>(request.vectors.size()), static_cast<int64_t>(request.vectors[0].size()));
      for (size_t q = 0; q < request.vectors.size(); ++q) {
        std::copy(request.vectors[q].begin(), request.vectors[q].end(), queries.row(static_cast<int64_t>(q)));
      }
    } else {
      TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.embed.model));
      request_log.model = model_name = m->name;
      TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> results, EmbedRequest(*m, request.embed, false));
      queries = StackVectors(results, results[0].vectors.cols());
    }
    TOKVEC_ASSIGN_OR_RETURN(const Metric metric, ParseMetric(request.metric.empty() ? options.metric : request.metric));
    TOKVEC_ASSIGN_OR_RETURN(std::vector<std::vector<SearchHit>> hits,
                            tokvec::Search(queries.view(), *index,
                                           {.k = request.k, .metric = metric, .threads = options.threads,
                                            .rescore_multiplier = request.rescore_multiplier}));
    std::string out = R"({"object":"list","data":[)";
    for (size_t q = 0; q < hits.size(); ++q) {
      fmt::format_to(std::back_inserter(out), R"({}{{"object":"search_result","index":{},"hits":[)", q > 0 ? "," : "",
                     q);
      for (size_t r = 0; r < hits[q].size(); ++r) {
        fmt::format_to(std::back_inserter(out), R"({}{{"index":{},"score":{}}})", r > 0 ? "," : "", hits[q][r].index,
                       hits[q][r].score);
      }
      out += "]}";
    }
    fmt::format_to(std::back_inserter(out), R"(],"model":{}}})", model_name.empty() ? "null" : Dump(model_name));
    return out;
  }

  // The logits of the pairs (a[i], b[i]) (singles when b is empty) through the model's batcher, so concurrent
  // /rerank and /predict requests (and embeddings requests) share forward passes; the same bits as
  // ClassifierLogits (`tokvec rerank`).
  absl::StatusOr<std::vector<std::vector<float>>> BatchedLogits(const ServedModel& m,
                                                                absl::Span<const std::string_view> a,
                                                                absl::Span<const std::string_view> b) {
    absl::StatusOr<ClassifierInputs> inputs = EncodeClassifierInputs(*m.dir, a, b);
    if (!inputs.ok()) return absl::InvalidArgumentError(inputs.status().message());
    int64_t tokens = 0;
    for (const std::vector<uint32_t>& ids : inputs->ids) tokens += static_cast<int64_t>(ids.size());
    request_log.tokens = std::max<int64_t>(request_log.tokens, 0) + tokens;  // -1: none counted yet
    metrics.ObserveTokens(tokens);
    TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> results,
                            m.batcher->Embed(std::move(inputs->ids), std::move(inputs->type_ids),
                                             PoolRequest{.head = &*m.head}));
    std::vector<std::vector<float>> logits;
    logits.reserve(results.size());
    for (const TextVectors& r : results) logits.emplace_back(r.vectors.data(), r.vectors.data() + r.vectors.size());
    return logits;
  }

  absl::StatusOr<std::string> RerankTei(const std::string& body) { return Rerank(body, false); }
  absl::StatusOr<std::string> RerankCohere(const std::string& body) { return Rerank(body, true); }

  // POST /rerank (TEI) and /v1/rerank (Cohere / Jina): the documents by a cross-encoder's score for the query.
  absl::StatusOr<std::string> Rerank(const std::string& body, bool cohere) {
    TOKVEC_ASSIGN_OR_RETURN(RerankRequest request, ParseRerankRequest(body, cohere));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    if (!m->head.ok()) {
      return absl::InvalidArgumentError(fmt::format("model '{}' cannot rerank: {}", m->name,
                                                    std::string(m->head.status().message())));
    }
    const std::vector<std::string_view> queries(request.texts.size(), request.query);
    const std::vector<std::string_view> texts(request.texts.begin(), request.texts.end());
    TOKVEC_ASSIGN_OR_RETURN(const std::vector<std::vector<float>> logits, BatchedLogits(*m, queries, texts));
    const std::vector<RankedDocument> ranked =
        RankDocuments(logits, request.raw_scores, static_cast<size_t>(request.top_n));
    std::string out = cohere ? R"({"results":[)" : "[";
    for (size_t r = 0; r < ranked.size(); ++r) {
      const RankedDocument& doc = ranked[r];
      const std::string text = request.return_text ? Dump(request.texts[doc.index]) : std::string();
      if (cohere) {
        fmt::format_to(std::back_inserter(out), R"({}{{"index":{},"relevance_score":{}{}}})", r > 0 ? "," : "",
                       doc.index, doc.score, text.empty() ? "" : R"(,"document":{"text":)" + text + "}");
      } else {
        fmt::format_to(std::back_inserter(out), R"({}{{"index":{},"score":{}{}}})", r > 0 ? "," : "", doc.index,
                       doc.score, text.empty() ? "" : R"(,"text":)" + text);
      }
    }
    if (cohere) {
      fmt::format_to(std::back_inserter(out), R"(],"model":{},"usage":{{"total_tokens":null}}}})", Dump(m->name));
    } else {
      out += "]";
    }
    return out;
  }

  // POST /predict (TEI): each input's labels and scores, best first; singles and pairs may share a batch.
  absl::StatusOr<std::string> Predict(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(PredictRequest request, ParsePredictRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    if (!m->head.ok()) {
      return absl::InvalidArgumentError(fmt::format("model '{}' cannot classify: {}", m->name,
                                                    std::string(m->head.status().message())));
    }
    // Singles in one call, pairs in another, each input's logits put back at its index.
    std::vector<std::vector<float>> logits(request.first.size());
    for (const bool pairs : {false, true}) {
      std::vector<size_t> at;
      std::vector<std::string_view> a, b;
      for (size_t i = 0; i < request.first.size(); ++i) {
        if (request.is_pair[i] != pairs) continue;
        at.push_back(i);
        a.push_back(request.first[i]);
        if (pairs) b.push_back(request.second[i]);
      }
      if (at.empty()) continue;
      TOKVEC_ASSIGN_OR_RETURN(std::vector<std::vector<float>> part, BatchedLogits(*m, a, b));
      for (size_t k = 0; k < at.size(); ++k) logits[at[k]] = std::move(part[k]);
    }
    const std::vector<std::string>& labels = m->head->labels();
    std::string out = request.batch ? "[" : "";
    for (size_t i = 0; i < logits.size(); ++i) {
      const std::vector<float> scores = ScoresOf(logits[i], request.raw_scores);
      std::vector<size_t> order(scores.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return scores[x] > scores[y]; });
      out += i > 0 ? ",[" : "[";
      for (size_t k = 0; k < order.size(); ++k) {
        fmt::format_to(std::back_inserter(out), R"({}{{"score":{},"label":{}}})", k > 0 ? "," : "",
                       scores[order[k]], Dump(labels[order[k]]));
      }
      out += "]";
    }
    if (request.batch) out += "]";
    return out;
  }

  absl::StatusOr<std::string> Tokenize(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(TokenizeRequest request, ParseTokenizeRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    const ModelDirectory& dir = *m->dir;
    absl::StatusOr<Encoding> encoding = dir.tokenizer().Encode(request.text);
    if (!encoding.ok()) return absl::InvalidArgumentError(encoding.status().message());
    std::vector<uint32_t> ids = encoding->ids;
    std::vector<Offset> offsets = encoding->offsets;
    if (request.add_special) {
      ids = dir.WithSpecialTokens(encoding->ids);
      const Offset start{0, 0}, end{request.text.size(), request.text.size()};
      offsets.insert(offsets.begin(), dir.SpecialTokensBefore(), start);
      offsets.insert(offsets.end(), dir.SpecialTokensAfter(), end);
    }
    request_log.tokens = static_cast<int64_t>(ids.size());
    Json out = {{"tokens", ids}};
    if (request.with_pieces) {
      Json pieces = Json::array();
      for (size_t k = 0; k < ids.size(); ++k) {
        pieces.push_back({{"id", ids[k]},
                          {"piece", dir.tokenizer().TokenSpelling(ids[k])},
                          {"text", ReadableToken(dir.tokenizer(), ids[k])},
                          {"offset", {offsets[k].begin, offsets[k].end}}});
      }
      out["pieces"] = std::move(pieces);
    }
    return Dump(out);
  }

  absl::StatusOr<std::string> Detokenize(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(DetokenizeRequest request, ParseDetokenizeRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    request_log.tokens = static_cast<int64_t>(request.ids.size());
    absl::StatusOr<std::string> text = m->dir->tokenizer().Decode(request.ids);
    if (!text.ok()) return absl::InvalidArgumentError(text.status().message());  // an id outside the vocabulary
    return Dump(Json{{"content", *text}});
  }

  absl::StatusOr<std::string> Attention(const std::string& body) {
    TOKVEC_ASSIGN_OR_RETURN(AttentionRequest request, ParseAttentionRequest(body));
    TOKVEC_ASSIGN_OR_RETURN(const ServedModel* m, FindModel(request.model));
    request_log.model = m->name;
    const ModelConfig& config = m->dir->model().config();
    if (request.layer < 0 || request.layer >= config.n_layers) {
      return absl::InvalidArgumentError(fmt::format("'layer' is {}; model '{}' has layers 0 to {}", request.layer,
                                                    m->name, config.n_layers - 1));
    }
    if (request.head < -1 || request.head >= config.n_heads) {
      return absl::InvalidArgumentError(fmt::format(
          "'head' is {}; model '{}' has heads 0 to {} (-1: their mean)", request.head, m->name, config.n_heads - 1));
    }
    const std::vector<EmbeddingInput> inputs = {{.text = request.text}};
    const EncodedTexts encoded = EncodeTextInputs(*m, inputs);
    TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, InputIds(*m, inputs[0], 0, Truncation::kNone, encoded, 0));
    request_log.tokens = static_cast<int64_t>(ids.size());
    TOKVEC_ASSIGN_OR_RETURN(EmbeddedText embedded,
                            m->dir->EmbedIds(ids, {.threads = options.threads, .keep_weights_of = {request.layer}}));
    const std::vector<Matrix>& heads = embedded.attention_weights.at(request.layer);  // [H] x [T, T]
    const int64_t t = static_cast<int64_t>(ids.size());
    Json weights = Json::array();
    for (int64_t i = 0; i < t; ++i) {
      std::vector<float> row(static_cast<size_t>(t));
      for (int64_t j = 0; j < t; ++j) {
        if (request.head >= 0) {
          row[j] = heads[request.head].at(i, j);
        } else {
          float sum = 0;
          for (const Matrix& h : heads) sum += h.at(i, j);
          row[j] = sum / static_cast<float>(heads.size());
        }
      }
      weights.push_back(std::move(row));
    }
    Json tokens = Json::array();
    for (uint32_t id : ids) tokens.push_back(ReadableToken(m->dir->tokenizer(), id));
    return Dump(Json{{"model", m->name}, {"layer", request.layer}, {"head", request.head},
                     {"n_layers", config.n_layers}, {"n_heads", config.n_heads}, {"ids", ids},
                     {"tokens", std::move(tokens)}, {"spellings", embedded.tokens}, {"weights", std::move(weights)}});
  }

  std::string Models() const {
    Json data = Json::array();
    for (const auto& m : models) {
      const ModelConfig& config = m->dir->model().config();
      data.push_back({{"id", m->name},
                      {"object", "model"},
                      {"created", 0},
                      {"owned_by", "tokvec"},
                      {"architecture", ArchitectureName(config.arch)},
                      {"dimensions", OutputWidth(*m->dir, m->choice)},
                      {"n_layers", config.n_layers},
                      {"n_heads", config.n_heads},
                      {"max_input_tokens", MaxInputTokens(*m)},
                      {"pooling", PoolingName(m->choice.pooling)},
                      {"normalize", m->choice.normalize},
                      {"dtype", LinearDtypeName(m->dir->model().linear_dtype())}});
    }
    return Dump(Json{{"object", "list"}, {"data", std::move(data)}});
  }

  // A POST route whose handler turns the body into a JSON response or an error status.
  void Post(const std::string& path, absl::StatusOr<std::string> (Impl::*handler)(const std::string&)) {
    http.Post(path, [this, handler](const httplib::Request& req, httplib::Response& res) {
      absl::StatusOr<std::string> out = (this->*handler)(req.body);
      if (out.ok()) {
        res.set_content(*out, "application/json");
      } else {
        HttpError error = ToHttpError(out.status());
        res.status = error.status;
        res.set_content(error.body, "application/json");
      }
    });
  }

  void Log(const httplib::Request& req, const httplib::Response& res) {
    const double seconds =
        request_log.started ? std::chrono::duration<double>(Clock::now() - request_log.start).count() : 0;
    static const std::set<std::string> kRoutes = {"/",          "/health",     "/metrics",      "/v1/models",
                                                  "/tokenize",  "/detokenize", "/v1/attention", "/v1/embeddings",
                                                  "/embeddings", "/embed",     "/embed_all",    "/search",
                                                  "/rerank",     "/v1/rerank",  "/predict"};
    metrics.ObserveRequest(kRoutes.contains(req.path) ? req.path : "other", res.status, seconds,
                           request_log.started);
    if (options.log) {
      const std::string line = fmt::format(
          "{} \"{} {}\" {} {} model={} tokens={} {:.1f}ms\n", req.remote_addr, req.method, req.path, res.status,
          res.body.size(), request_log.model.empty() ? "-" : request_log.model,
          request_log.tokens < 0 ? std::string("-") : std::to_string(request_log.tokens), seconds * 1e3);
      std::lock_guard<std::mutex> lock(log_mutex);
      std::fputs(line.c_str(), stderr);
    }
    request_log = RequestLog{};
  }

  void SetUpRoutes() {
    http.new_task_queue = [n = options.http_threads] { return new httplib::ThreadPool(static_cast<size_t>(n)); };
    http.set_payload_max_length(options.max_body_bytes);
    http.set_read_timeout(options.timeout_seconds, 0);
    http.set_write_timeout(options.timeout_seconds, 0);
    // Small responses go out at once: without TCP_NODELAY, Nagle's algorithm and the client's delayed ACK held
    // each keep-alive response ~40 ms (bench/serve.sh: GET /health took 44 ms, 0.1 ms with it).
    http.set_tcp_nodelay(true);
    http.set_socket_options([this](socket_t sock) {
      httplib::default_socket_options(sock);
      listen_socket = sock;
    });
    http.set_keep_alive_max_count(1000);
    http.set_keep_alive_timeout(5);
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      request_log = RequestLog{.start = Clock::now(), .started = true};
      metrics.RequestStarted();
      if (options.api_key.empty() || req.path == "/" || req.path == "/health") {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      if (req.get_header_value("Authorization") != "Bearer " + options.api_key) {
        HttpError error = ToHttpError(absl::UnauthenticatedError(
            req.has_header("Authorization") ? "the API key is not valid"
                                            : "an API key is needed: send 'Authorization: Bearer KEY'"));
        res.status = error.status;
        res.set_content(error.body, "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // Errors httplib answers itself (no route, a body over the limit, a malformed request line) get OpenAI's
    // body too.
    http.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& req,
                                                                         httplib::Response& res) {
      if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
      std::string body;
      if (res.status == 404) {
        body = ErrorBody(fmt::format("no route {} {}; see GET / and the README's serve section", req.method,
                                     req.path),
                         "invalid_request_error", "unknown_url");
      } else if (res.status == 413) {
        body = ToHttpError(absl::ResourceExhaustedError(fmt::format(
                               "the request body is larger than this server's limit of {} bytes",
                               options.max_body_bytes)))
                   .body;
      } else {
        body = ErrorBody(fmt::format("HTTP {}", res.status), "invalid_request_error", "bad_request");
      }
      res.set_content(body, "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }));
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) { Log(req, res); });
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "unknown exception";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      res.status = 500;
      res.set_content(ErrorBody(what, "server_error", "internal_error"), "application/json");
    });

    Post("/v1/embeddings", &Impl::Embeddings);
    Post("/embeddings", &Impl::Embeddings);
    Post("/embed", &Impl::EmbedTei);
    Post("/embed_all", &Impl::EmbedAll);
    Post("/search", &Impl::Search);
    Post("/rerank", &Impl::RerankTei);
    Post("/v1/rerank", &Impl::RerankCohere);
    Post("/predict", &Impl::Predict);
    Post("/tokenize", &Impl::Tokenize);
    Post("/detokenize", &Impl::Detokenize);
    Post("/v1/attention", &Impl::Attention);
    http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(Models(), "application/json");
    });
    http.Get("/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"status":"ok"})", "application/json");
    });
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      std::vector<std::pair<std::string, size_t>> queues;
      for (const auto& m : models) queues.emplace_back(m->name, m->batcher->queue_length());
      res.set_content(metrics.Render(queues), "text/plain; version=0.0.4");
    });
    http.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(kViewerPage), "text/html; charset=utf-8");
    });
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

absl::StatusOr<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  if (options.models.empty()) return absl::InvalidArgumentError("no model: pass -m DIR");
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("--threads must be at least 1, not {}", options.threads));
  }
  if (options.max_batch_tokens < 1) {
    return absl::InvalidArgumentError(
        fmt::format("--max-batch-tokens must be at least 1, not {}", options.max_batch_tokens));
  }
  if (options.max_input_tokens < 0) {
    return absl::InvalidArgumentError(
        fmt::format("--max-input-tokens must be 0 (the model's maximum) or more, not {}", options.max_input_tokens));
  }
  TOKVEC_ASSIGN_OR_RETURN(const LinearDtype dtype, ParseLinearDtype(options.dtype));
  TOKVEC_RETURN_IF_ERROR(CheckCpuSupports(dtype));  // before the (slow) loads
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  for (const std::string& path : options.models) {
    auto m = std::make_unique<ServedModel>();
    m->name = std::filesystem::path(path).lexically_normal().filename().string();
    if (m->name.empty()) m->name = std::filesystem::path(path).lexically_normal().parent_path().filename().string();
    for (const auto& other : impl->models) {
      if (other->name == m->name) {
        return absl::InvalidArgumentError(fmt::format(
            "two models are named '{}' ({} and another -m); models are served under their folder's name, so "
            "give them different folder names",
            m->name, path));
      }
    }
    TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load(path, dtype));
    m->dir = std::make_unique<ModelDirectory>(std::move(dir));
    TOKVEC_ASSIGN_OR_RETURN(m->choice, ChoosePooling(*m->dir, options.pooling, options.normalize));
    m->head = LoadSequenceClassifier(*m->dir);  // a cross-encoder's head, for /rerank; an error kept otherwise
    Metrics* metrics = &impl->metrics;
    m->batcher = std::make_unique<Batcher>(
        *m->dir, BatcherOptions{.choice = m->choice, .threads = options.threads,
                                .max_batch_tokens = options.max_batch_tokens,
                                .on_batch = [metrics](size_t requests, size_t sequences, size_t tokens) {
                                  metrics->ObserveBatch(requests, sequences, tokens);
                                }});
    impl->models.push_back(std::move(m));
  }
  // Prompts are checked once here, so a misspelt --prompt-name stops the start, not every request.
  for (const auto& m : impl->models) {
    TOKVEC_RETURN_IF_ERROR(ChoosePrompt(m->dir->sentence_config(), std::nullopt, options.prompt_name, true).status());
  }
  TOKVEC_RETURN_IF_ERROR(ParseMetric(options.metric).status());
  if (!options.index.empty()) {
    TOKVEC_ASSIGN_OR_RETURN(VectorIndex index, VectorIndex::Open(options.index));
    bool fits = false;  // some model's vectors can be searched in it
    for (const auto& m : impl->models) fits = fits || KindOfSearch(OutputWidth(*m->dir, m->choice), index).ok();
    if (!fits) {
      return absl::InvalidArgumentError(fmt::format(
          "--index '{}' ({} x {} {}) fits no served model's vectors: {}", options.index, index.rows(), index.cols(),
          NpyDtypeName(index.dtype()),
          std::string(KindOfSearch(OutputWidth(*impl->models[0]->dir, impl->models[0]->choice), index)
                          .status()
                          .message())));
    }
    impl->index = std::move(index);
  }
  impl->SetUpRoutes();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

absl::StatusOr<int> Server::Bind() {
  const ServerOptions& options = impl_->options;
  const int port = options.port == 0 ? impl_->http.bind_to_any_port(options.host)
                                     : (impl_->http.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    return absl::UnavailableError(fmt::format("cannot listen on {}:{} (in use, or not an address of this machine)",
                                              options.host, options.port));
  }
  // httplib listens with a backlog of 5: a burst of new connections (16 clients starting at once) overflowed it
  // and waited ~1 s for the SYN to be resent (p99 1022 ms in bench/serve.sh). listen() again raises it.
  if (impl_->listen_socket >= 0) ::listen(impl_->listen_socket, SOMAXCONN);
  return port;
}

absl::Status Server::Run() {
  impl_->http.listen_after_bind();
  // Every accepted connection has been served (httplib joins its pool); the batchers finish their queues when
  // the models go away with the server.
  return absl::OkStatus();
}

void Server::Stop() { impl_->http.stop(); }

}  // namespace tokvec::server
