// Fuzz target: the HTTP API's request parsers (server/api.h), /search's included. Any body gives InvalidArgument
// with a message, or a request whose invariants hold: at least one input, every input non-empty.
//
//   build-fuzz/fuzz_server_requests tests/fuzz/corpus/server_requests -max_total_time=30
#include <cstdint>
#include <string>
#include <string_view>

#include "nlohmann/json.hpp"
#include "server/api.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec::server;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<EmbeddingsRequest> embeddings = ParseEmbeddingsRequest(body);
  if (embeddings.ok()) {
    FUZZ_CHECK(!embeddings->inputs.empty() && embeddings->inputs.size() <= 2048);
    for (const EmbeddingInput& input : embeddings->inputs) {
      FUZZ_CHECK(input.is_ids ? !input.ids.empty() : !input.text.empty());
    }
    // The error body for any message is valid JSON (the message may hold any bytes).
    FUZZ_CHECK(nlohmann::json::accept(ToHttpError(absl::InvalidArgumentError(std::string(body))).body));
  } else {
    FUZZ_CHECK(embeddings.status().code() == absl::StatusCode::kInvalidArgument);
    FUZZ_CHECK(!embeddings.status().message().empty());
  }
  // /search: query inputs or equally long vectors, k and the multiplier in range, the direction normalised.
  absl::StatusOr<SearchRequest> search = ParseSearchRequest(body);
  if (search.ok()) {
    FUZZ_CHECK(search->embed.inputs.empty() != search->vectors.empty());
    for (const auto& v : search->vectors) FUZZ_CHECK(v.size() == search->vectors[0].size() && !v.empty());
    FUZZ_CHECK(search->k >= 1 && search->k <= 10000);
    FUZZ_CHECK(search->rescore_multiplier >= 0);
    const std::string& d = search->embed.truncation_direction;
    FUZZ_CHECK(d.empty() || d == "right" || d == "left");
  }
  // /rerank and /v1/rerank: a query and at least one document, top_n not negative.
  for (const bool cohere : {false, true}) {
    absl::StatusOr<RerankRequest> rerank = ParseRerankRequest(body, cohere);
    if (rerank.ok()) FUZZ_CHECK(!rerank->texts.empty() && rerank->top_n >= 0);
    FUZZ_CHECK(rerank.ok() ||
               (rerank.status().code() == absl::StatusCode::kInvalidArgument && !rerank.status().message().empty()));
  }
  // /predict: at least one input, the three lists of one length, a pair's flag matching its second text.
  absl::StatusOr<PredictRequest> predict = ParsePredictRequest(body);
  if (predict.ok()) {
    FUZZ_CHECK(!predict->first.empty() && predict->first.size() == predict->second.size() &&
               predict->first.size() == predict->is_pair.size());
    FUZZ_CHECK(predict->batch || predict->first.size() == 1);
    for (size_t i = 0; i < predict->first.size(); ++i) FUZZ_CHECK(predict->is_pair[i] || predict->second[i].empty());
  }
  for (absl::Status status : {ParseTokenizeRequest(body).status(), ParseDetokenizeRequest(body).status(),
                              ParseAttentionRequest(body).status(), search.status(), predict.status()}) {
    FUZZ_CHECK(status.ok() || (status.code() == absl::StatusCode::kInvalidArgument && !status.message().empty()));
  }
  return 0;
}
