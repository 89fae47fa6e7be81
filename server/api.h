// The HTTP API's requests and responses as values: JSON bodies parsed into structs (every wrong shape a clear
// InvalidArgument), results written back in OpenAI's shapes, and each absl::Status mapped once to an HTTP status
// and OpenAI's error body. No sockets here (server.h does those), so the parsing is fuzzed and unit-tested alone.
//
//   TOKVEC_ASSIGN_OR_RETURN(EmbeddingsRequest request, ParseEmbeddingsRequest(R"({"input": ["a cat", "a dog"]})"));
//   // request.inputs[0].text == "a cat"; request.format == EncodingFormat::kFloat
//   HttpError e = ToHttpError(absl::NotFoundError("model 'x' is not served"));
//   // e.status == 404; e.body == {"error": {"message": "model 'x' is not served", "type": "invalid_request_error",
//   //                                       "code": "model_not_found", "param": null}}
//
// OpenAI's embeddings API: https://platform.openai.com/docs/api-reference/embeddings (request: input, model,
// encoding_format, dimensions, user; response: {"object": "list", "data": [{"object": "embedding", "index",
// "embedding"}], "model", "usage": {"prompt_tokens", "total_tokens"}}).
#ifndef TOKVEC_SERVER_API_H_
#define TOKVEC_SERVER_API_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tokvec::server {

// One input of an embeddings request: a text, or token ids (without the model's special tokens, as /tokenize
// gives them by default; the server adds them as it does for text).
struct EmbeddingInput {
  bool is_ids = false;
  std::string text;
  std::vector<uint32_t> ids;
};

enum class EncodingFormat { kFloat, kBase64 };

// The fields of an embeddings request, OpenAI's (/v1/embeddings) and text-embeddings-inference's (/embed,
// /embed_all) together; each route reads the ones it has.
struct EmbeddingsRequest {
  std::vector<EmbeddingInput> inputs;            // at least one ("input", or TEI's "inputs")
  std::string model;                             // empty: the only model served
  EncodingFormat format = EncodingFormat::kFloat;
  std::optional<int64_t> dimensions;             // Matryoshka: the first K values, rescaled to unit length
  std::optional<bool> truncate;                  // cut over-long inputs (else 400); unset: the server's default
  std::string truncation_direction;              // "right" (default) or "left" (TEI's "Right"/"Left" too)
  std::string prompt_name;                       // TEI: a prompt of the model's config_sentence_transformers.json
  std::string pooling;                           // "": the server's; mean, cls, last, max
  std::optional<bool> normalize;                 // TEI /embed's normalize
  std::string precision;                         // "" or float32; int8, uint8, binary, ubinary (integer arrays)
};

// Errors (InvalidArgument): malformed JSON, not an object, `input` missing, empty, of a wrong type (a number,
// an object, a mixed array), an empty string, an id that is negative, fractional or above 2^32; a wrong
// `model`/`encoding_format`/`dimensions`/`truncate`/`prompt_name`/`pooling`/`precision` type, an unknown
// encoding_format, truncation_direction, pooling or precision, both `input` and `inputs`.
absl::StatusOr<EmbeddingsRequest> ParseEmbeddingsRequest(std::string_view body);

// POST /search: the query inputs (texts or ids, embedded as /v1/embeddings embeds them, prompt and truncation
// included) or query vectors ("vectors": [[floats]]), and "k" (default 10), "rescore_multiplier" (binary
// indexes, default 4), "metric" ("cosine" or "dot"; default the server's).
struct SearchRequest {
  EmbeddingsRequest embed;                  // inputs empty when vectors are given
  std::vector<std::vector<float>> vectors;  // [Q][D]
  int64_t k = 10;
  int64_t rescore_multiplier = 4;
  std::string metric;
};
absl::StatusOr<SearchRequest> ParseSearchRequest(std::string_view body);

// POST /rerank (text-embeddings-inference): {"query", "texts": [...], "raw_scores", "return_text", "truncate",
// "truncation_direction"} -> [{"index", "score"[, "text"]}] best first. POST /v1/rerank (the Cohere / Jina shape):
// {"query", "documents": [strings or {"text": ...}], "top_n", "return_documents", "model"} -> {"results":
// [{"index", "relevance_score"[, "document": {"text"}]}], "model", "usage"}. Pairs are always cut longest-first
// to the model's maximum (sentence-transformers' CrossEncoder), so "truncate" is read and checked, not needed.
struct RerankRequest {
  std::string query;
  std::vector<std::string> texts;  // at least one, none empty
  std::string model;
  bool raw_scores = false;
  bool return_text = false;  // TEI's return_text; Cohere's return_documents
  int64_t top_n = 0;         // 0: every document
};
// Errors (InvalidArgument): malformed JSON, not an object, 'query' missing or not a string, the documents
// ('texts', or 'documents' with `cohere`) missing, empty, too many or not strings (or {"text"} objects), a wrong
// type of the other fields, top_n below 0, a truncation_direction other than right/left.
absl::StatusOr<RerankRequest> ParseRerankRequest(std::string_view body, bool cohere);

// POST /predict (text-embeddings-inference): {"inputs": "text" | ["text a", "text b"] (one pair) | [["text"],
// ["a", "b"], ...] (a batch of singles and pairs), "raw_scores", "truncate", "model"} -> [{"score", "label"}, ...]
// for one input (every label, best first), a list of those for a batch. Scores as /rerank's: softmax over the
// labels (sigmoid for one label), logits with raw_scores. Inputs are always cut to the model's maximum, as
// /rerank's pairs are ("truncate" is read and checked; TEI instead refuses over-long inputs unless it is true).
struct PredictRequest {
  std::vector<std::string> first;   // [N]
  std::vector<std::string> second;  // [N]; empty for a single text
  std::vector<bool> is_pair;        // [N]
  bool batch = false;               // "inputs" was a list of inputs (the response is a list of lists)
  std::string model;
  bool raw_scores = false;
};
// Errors (InvalidArgument): malformed JSON, 'inputs' missing or of another shape (a list inside a batch of not one
// or two strings, more than two strings for one input, an empty batch, too many inputs), wrong types of the other
// fields.
absl::StatusOr<PredictRequest> ParsePredictRequest(std::string_view body);

// POST /tokenize: {"content": "..."} (llama.cpp) or {"text": "..."}; "add_special" (default false) adds the
// model's special tokens; "with_pieces" asks for each token's spelling, readable form and byte offsets.
struct TokenizeRequest {
  std::string text;
  std::string model;
  bool add_special = false;
  bool with_pieces = false;
};
absl::StatusOr<TokenizeRequest> ParseTokenizeRequest(std::string_view body);

// POST /detokenize: {"tokens": [ids]}.
struct DetokenizeRequest {
  std::vector<uint32_t> ids;
  std::string model;
};
absl::StatusOr<DetokenizeRequest> ParseDetokenizeRequest(std::string_view body);

// POST /v1/attention: {"text", "layer" (default 0), "head" (default 0; -1: the mean over heads), "model"}.
struct AttentionRequest {
  std::string text;
  std::string model;
  int64_t layer = 0;
  int64_t head = 0;
};
absl::StatusOr<AttentionRequest> ParseAttentionRequest(std::string_view body);

// The vector as OpenAI's clients read it: a JSON array of floats (each in its shortest round-trip form, so it
// parses back to the same float32), or base64 of its little-endian float32 bytes.
std::string EncodeEmbedding(const float* values, int64_t n, EncodingFormat format);

// An HTTP status and OpenAI's error body, from a status:
//   InvalidArgument 400 invalid_value, OutOfRange 400 context_length_exceeded, Unimplemented 400
//   unsupported_parameter, Unauthenticated 401 invalid_api_key, NotFound 404 model_not_found,
//   ResourceExhausted 413 request_too_large, Unavailable 503 server_shutting_down, anything else 500.
struct HttpError {
  int status = 500;
  std::string body;
};
HttpError ToHttpError(const absl::Status& status);
// The body for an error with an explicit HTTP status, type and code (e.g. 404 unknown_url).
std::string ErrorBody(std::string_view message, std::string_view type, std::string_view code);

}  // namespace tokvec::server

#endif  // TOKVEC_SERVER_API_H_
