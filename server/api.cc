#include "server/api.h"

#include <bit>
#include <cstring>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec::server {
namespace {

using Json = nlohmann::json;

// OpenAI's limit on the number of inputs in one request.
constexpr size_t kMaxInputs = 2048;

std::string_view TypeName(const Json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_array()) return "an array";
  return "an object";
}

absl::StatusOr<Json> ParseObject(std::string_view body) {
  Json json = Json::parse(body.begin(), body.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(
        "the request body is not valid JSON; send an object such as {\"input\": \"some text\"} with "
        "Content-Type: application/json");
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(fmt::format("the request body must be a JSON object, not {}", TypeName(json)));
  }
  return json;
}

// `key` when present and of the wanted type; InvalidArgument naming the key otherwise.
absl::Status ReadString(const Json& object, const char* key, std::string* out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(fmt::format("'{}' must be a string, not {}", key, TypeName(*it)));
  }
  *out = it->get<std::string>();
  return absl::OkStatus();
}

absl::Status ReadBool(const Json& object, const char* key, bool* out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_boolean()) {
    return absl::InvalidArgumentError(fmt::format("'{}' must be true or false, not {}", key, TypeName(*it)));
  }
  *out = it->get<bool>();
  return absl::OkStatus();
}

absl::Status ReadInt(const Json& object, const char* key, int64_t* out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX)) {
    return absl::InvalidArgumentError(fmt::format("'{}' must be an integer, not {}", key, TypeName(*it)));
  }
  *out = it->get<int64_t>();
  return absl::OkStatus();
}

// A token id: an integer in [0, 2^32).
absl::StatusOr<uint32_t> ReadId(const Json& value, std::string_view where) {
  if (!value.is_number_integer()) {
    return absl::InvalidArgumentError(fmt::format("{} must be a token id (an integer), not {}", where,
                                                  TypeName(value)));
  }
  if (!value.is_number_unsigned() || value.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(fmt::format("{} is {}, not a token id (ids are 0 or more)", where,
                                                  value.dump()));
  }
  return static_cast<uint32_t>(value.get<uint64_t>());
}

absl::StatusOr<std::vector<uint32_t>> ReadIds(const Json& array, std::string_view where) {
  std::vector<uint32_t> ids;
  ids.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i) {
    TOKVEC_ASSIGN_OR_RETURN(uint32_t id, ReadId(array[i], fmt::format("{}[{}]", where, i)));
    ids.push_back(id);
  }
  return ids;
}

// `input` (or TEI's `inputs`): a string, an array of strings, an array of ids, or an array of arrays of ids.
absl::StatusOr<std::vector<EmbeddingInput>> ReadInputs(const Json& object) {
  auto it = object.find("input");
  if (object.contains("inputs")) {
    if (it != object.end()) return absl::InvalidArgumentError("give 'input' or 'inputs', not both");
    it = object.find("inputs");
  }
  if (it == object.end()) {
    return absl::InvalidArgumentError(
        "'input' is missing; give a string, an array of strings, an array of token ids or an array of arrays");
  }
  const Json& input = *it;
  std::vector<EmbeddingInput> inputs;
  auto add_text = [&](const Json& value, std::string_view where) -> absl::Status {
    if (value.get_ref<const std::string&>().empty()) {
      return absl::InvalidArgumentError(fmt::format("{} is an empty string; every input needs some text", where));
    }
    inputs.push_back({.text = value.get<std::string>()});
    return absl::OkStatus();
  };
  if (input.is_string()) {
    TOKVEC_RETURN_IF_ERROR(add_text(input, "'input'"));
    return inputs;
  }
  if (!input.is_array()) {
    return absl::InvalidArgumentError(fmt::format(
        "'input' must be a string or an array (of strings, token ids or arrays of ids), not {}", TypeName(input)));
  }
  if (input.empty()) return absl::InvalidArgumentError("'input' is an empty array; give at least one input");
  if (input[0].is_number()) {  // one sequence of ids
    TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, ReadIds(input, "'input'"));
    inputs.push_back({.is_ids = true, .ids = std::move(ids)});
    return inputs;
  }
  if (input.size() > kMaxInputs) {
    return absl::InvalidArgumentError(
        fmt::format("'input' has {} items; at most {} in one request", input.size(), kMaxInputs));
  }
  const bool strings = input[0].is_string();
  for (size_t i = 0; i < input.size(); ++i) {
    const Json& item = input[i];
    const std::string where = fmt::format("'input'[{}]", i);
    if (strings && item.is_string()) {
      TOKVEC_RETURN_IF_ERROR(add_text(item, where));
    } else if (!strings && item.is_array()) {
      if (item.empty()) return absl::InvalidArgumentError(fmt::format("{} is an empty array of ids", where));
      TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, ReadIds(item, where));
      inputs.push_back({.is_ids = true, .ids = std::move(ids)});
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "{} is {}; an array input holds only strings, only token ids, or only arrays of ids", where,
          TypeName(item)));
    }
  }
  return inputs;
}

}  // namespace

namespace {

// Every field of an embeddings request but its inputs.
absl::Status ReadEmbeddingFields(const Json& object, EmbeddingsRequest* out) {
  EmbeddingsRequest& request = *out;
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "model", &request.model));
  std::string format = "float";
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "encoding_format", &format));
  if (format == "base64") {
    request.format = EncodingFormat::kBase64;
  } else if (format != "float") {
    return absl::InvalidArgumentError(
        fmt::format("'encoding_format' is '{}'; it must be 'float' or 'base64'", format));
  }
  if (object.contains("dimensions") && !object["dimensions"].is_null()) {
    int64_t dimensions = 0;
    TOKVEC_RETURN_IF_ERROR(ReadInt(object, "dimensions", &dimensions));
    request.dimensions = dimensions;
  }
  if (object.contains("truncate") && !object["truncate"].is_null()) {
    bool truncate = false;
    TOKVEC_RETURN_IF_ERROR(ReadBool(object, "truncate", &truncate));
    request.truncate = truncate;
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "truncation_direction", &request.truncation_direction));
  std::string& direction = request.truncation_direction;
  if (direction == "Right" || direction == "Left") direction[0] = static_cast<char>(direction[0] - 'A' + 'a');
  if (!direction.empty() && direction != "right" && direction != "left") {
    return absl::InvalidArgumentError(
        fmt::format("'truncation_direction' is '{}'; it must be 'right' or 'left'", direction));
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "prompt_name", &request.prompt_name));
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "pooling", &request.pooling));
  if (!request.pooling.empty() && request.pooling != "mean" && request.pooling != "cls" && request.pooling != "last" &&
      request.pooling != "max") {
    return absl::InvalidArgumentError(
        fmt::format("'pooling' is '{}'; it must be 'mean', 'cls', 'last' or 'max'", request.pooling));
  }
  if (object.contains("normalize") && !object["normalize"].is_null()) {
    bool normalize = false;
    TOKVEC_RETURN_IF_ERROR(ReadBool(object, "normalize", &normalize));
    request.normalize = normalize;
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "precision", &request.precision));
  const std::string& p = request.precision;
  if (!p.empty() && p != "float32" && p != "int8" && p != "uint8" && p != "binary" && p != "ubinary") {
    return absl::InvalidArgumentError(
        fmt::format("'precision' is '{}'; it must be float32, int8, uint8, binary or ubinary", p));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EmbeddingsRequest> ParseEmbeddingsRequest(std::string_view body) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  EmbeddingsRequest request;
  TOKVEC_ASSIGN_OR_RETURN(request.inputs, ReadInputs(object));
  TOKVEC_RETURN_IF_ERROR(ReadEmbeddingFields(object, &request));
  return request;
}

absl::StatusOr<SearchRequest> ParseSearchRequest(std::string_view body) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  SearchRequest request;
  auto vectors = object.find("vectors");
  if (vectors != object.end() && !vectors->is_null()) {
    if (object.contains("input") || object.contains("inputs")) {
      return absl::InvalidArgumentError("give query texts ('input') or query 'vectors', not both");
    }
    if (!vectors->is_array() || vectors->empty()) {
      return absl::InvalidArgumentError("'vectors' must be a non-empty array of arrays of numbers");
    }
    if (vectors->size() > kMaxInputs) {
      return absl::InvalidArgumentError(
          fmt::format("'vectors' has {} items; at most {} in one request", vectors->size(), kMaxInputs));
    }
    for (size_t i = 0; i < vectors->size(); ++i) {
      const Json& row = (*vectors)[i];
      if (!row.is_array() || row.empty() || row.size() != (*vectors)[0].size()) {
        return absl::InvalidArgumentError(fmt::format(
            "'vectors'[{}] must be an array of numbers as long as 'vectors'[0]", i));
      }
      std::vector<float> values;
      values.reserve(row.size());
      for (const Json& x : row) {
        if (!x.is_number()) {
          return absl::InvalidArgumentError(fmt::format("'vectors'[{}] holds {}, not a number", i, TypeName(x)));
        }
        values.push_back(x.get<float>());
      }
      request.vectors.push_back(std::move(values));
    }
  } else {
    TOKVEC_ASSIGN_OR_RETURN(request.embed.inputs, ReadInputs(object));
  }
  TOKVEC_RETURN_IF_ERROR(ReadEmbeddingFields(object, &request.embed));
  TOKVEC_RETURN_IF_ERROR(ReadInt(object, "k", &request.k));
  if (request.k < 1 || request.k > 10000) {
    return absl::InvalidArgumentError(fmt::format("'k' is {}; it must be 1 to 10000", request.k));
  }
  TOKVEC_RETURN_IF_ERROR(ReadInt(object, "rescore_multiplier", &request.rescore_multiplier));
  if (request.rescore_multiplier < 0 || request.rescore_multiplier > 1000) {
    return absl::InvalidArgumentError(
        fmt::format("'rescore_multiplier' is {}; it must be 0 to 1000", request.rescore_multiplier));
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "metric", &request.metric));
  if (!request.metric.empty() && request.metric != "cosine" && request.metric != "dot") {
    return absl::InvalidArgumentError(fmt::format("'metric' is '{}'; it must be 'cosine' or 'dot'", request.metric));
  }
  return request;
}

absl::StatusOr<RerankRequest> ParseRerankRequest(std::string_view body, bool cohere) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  RerankRequest request;
  auto query = object.find("query");
  if (query == object.end() || !query->is_string()) {
    return absl::InvalidArgumentError(query == object.end() ? std::string("'query' is missing")
                                                            : fmt::format("'query' must be a string, not {}",
                                                                          TypeName(*query)));
  }
  request.query = query->get<std::string>();
  const char* key = cohere ? "documents" : "texts";
  auto texts = object.find(key);
  if (texts == object.end() || !texts->is_array() || texts->empty()) {
    return absl::InvalidArgumentError(fmt::format("'{}' must be a non-empty array of {}", key,
                                                  cohere ? "strings or {\"text\": ...} objects" : "strings"));
  }
  if (texts->size() > kMaxInputs) {
    return absl::InvalidArgumentError(
        fmt::format("'{}' has {} items; at most {} in one request", key, texts->size(), kMaxInputs));
  }
  for (size_t i = 0; i < texts->size(); ++i) {
    const Json* item = &(*texts)[i];
    if (cohere && item->is_object() && item->contains("text")) item = &(*item)["text"];
    if (!item->is_string()) {
      return absl::InvalidArgumentError(fmt::format("'{}'[{}] must be a string, not {}", key, i, TypeName(*item)));
    }
    request.texts.push_back(item->get<std::string>());
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "model", &request.model));
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, "raw_scores", &request.raw_scores));
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, cohere ? "return_documents" : "return_text", &request.return_text));
  bool truncate = true;
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, "truncate", &truncate));
  std::string direction;
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "truncation_direction", &direction));
  if (!direction.empty() && direction != "right" && direction != "Right") {
    return absl::InvalidArgumentError(fmt::format(
        "'truncation_direction' is \"{}\"; pairs are cut longest-first from the right (\"right\")", direction));
  }
  TOKVEC_RETURN_IF_ERROR(ReadInt(object, "top_n", &request.top_n));
  if (request.top_n < 0) {
    return absl::InvalidArgumentError(fmt::format("'top_n' is {}; it must be 0 (all) or more", request.top_n));
  }
  return request;
}

absl::StatusOr<PredictRequest> ParsePredictRequest(std::string_view body) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  PredictRequest request;
  const auto inputs = object.find("inputs");
  const char* shape = "a string, a pair [string, string] or a batch [[string], [string, string], ...]";
  if (inputs == object.end()) return absl::InvalidArgumentError(fmt::format("'inputs' is missing; give {}", shape));
  // One input from a list of one or two strings.
  auto add = [&](const Json& list, const std::string& where) -> absl::Status {
    if (!list.is_array() || list.empty() || list.size() > 2) {
      return absl::InvalidArgumentError(fmt::format("{} must be one string or a pair of strings; the inputs are {}",
                                                    where, shape));
    }
    for (size_t k = 0; k < list.size(); ++k) {
      if (!list[k].is_string()) {
        return absl::InvalidArgumentError(
            fmt::format("{}[{}] must be a string, not {}", where, k, TypeName(list[k])));
      }
    }
    request.first.push_back(list[0].get<std::string>());
    request.second.push_back(list.size() == 2 ? list[1].get<std::string>() : std::string());
    request.is_pair.push_back(list.size() == 2);
    return absl::OkStatus();
  };
  if (inputs->is_string()) {
    TOKVEC_RETURN_IF_ERROR(add(Json::array({*inputs}), "'inputs'"));
  } else if (inputs->is_array() && !inputs->empty() && (*inputs)[0].is_string()) {
    TOKVEC_RETURN_IF_ERROR(add(*inputs, "'inputs'"));
  } else if (inputs->is_array() && !inputs->empty()) {
    if (inputs->size() > kMaxInputs) {
      return absl::InvalidArgumentError(
          fmt::format("'inputs' has {} items; at most {} in one request", inputs->size(), kMaxInputs));
    }
    request.batch = true;
    for (size_t i = 0; i < inputs->size(); ++i) {
      TOKVEC_RETURN_IF_ERROR(add((*inputs)[i], fmt::format("'inputs'[{}]", i)));
    }
  } else {
    return absl::InvalidArgumentError(fmt::format("'inputs' must be {}, not {}", shape,
                                                  inputs->is_array() ? "an empty list" : TypeName(*inputs)));
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "model", &request.model));
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, "raw_scores", &request.raw_scores));
  bool truncate = true;
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, "truncate", &truncate));
  return request;
}

absl::StatusOr<TokenizeRequest> ParseTokenizeRequest(std::string_view body) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  TokenizeRequest request;
  const char* key = object.contains("content") ? "content" : "text";
  if (!object.contains(key)) {
    return absl::InvalidArgumentError("'content' (or 'text') is missing; give the text to tokenize");
  }
  if (!object[key].is_string()) {
    return absl::InvalidArgumentError(fmt::format("'{}' must be a string, not {}", key, TypeName(object[key])));
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, key, &request.text));
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "model", &request.model));
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, "add_special", &request.add_special));
  TOKVEC_RETURN_IF_ERROR(ReadBool(object, "with_pieces", &request.with_pieces));
  return request;
}

absl::StatusOr<DetokenizeRequest> ParseDetokenizeRequest(std::string_view body) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  DetokenizeRequest request;
  auto it = object.find("tokens");
  if (it == object.end()) return absl::InvalidArgumentError("'tokens' is missing; give an array of token ids");
  if (!it->is_array()) {
    return absl::InvalidArgumentError(fmt::format("'tokens' must be an array of token ids, not {}", TypeName(*it)));
  }
  TOKVEC_ASSIGN_OR_RETURN(request.ids, ReadIds(*it, "'tokens'"));
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "model", &request.model));
  return request;
}

absl::StatusOr<AttentionRequest> ParseAttentionRequest(std::string_view body) {
  TOKVEC_ASSIGN_OR_RETURN(Json object, ParseObject(body));
  AttentionRequest request;
  if (!object.contains("text") || !object["text"].is_string()) {
    return absl::InvalidArgumentError("'text' is missing or not a string; give the text to look at");
  }
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "text", &request.text));
  if (request.text.empty()) return absl::InvalidArgumentError("'text' is empty");
  TOKVEC_RETURN_IF_ERROR(ReadString(object, "model", &request.model));
  TOKVEC_RETURN_IF_ERROR(ReadInt(object, "layer", &request.layer));
  TOKVEC_RETURN_IF_ERROR(ReadInt(object, "head", &request.head));
  return request;
}

std::string EncodeEmbedding(const float* values, int64_t n, EncodingFormat format) {
  if (format == EncodingFormat::kBase64) {
    static_assert(std::endian::native == std::endian::little, "base64 embeddings are little-endian float32");
    return "\"" + absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(values), n * sizeof(float))) +
           "\"";
  }
  std::string out = "[";
  for (int64_t j = 0; j < n; ++j) {
    if (j > 0) out += ',';
    fmt::format_to(std::back_inserter(out), "{}", values[j]);
  }
  return out + "]";
}

std::string ErrorBody(std::string_view message, std::string_view type, std::string_view code) {
  Json error = {{"error", {{"message", message}, {"type", type}, {"code", code}, {"param", nullptr}}}};
  return error.dump(-1, ' ', false, Json::error_handler_t::replace);
}

HttpError ToHttpError(const absl::Status& status) {
  struct Row {
    absl::StatusCode code;
    int http;
    const char* type;
    const char* name;
  };
  static constexpr Row kTable[] = {
      {absl::StatusCode::kInvalidArgument, 400, "invalid_request_error", "invalid_value"},
      {absl::StatusCode::kOutOfRange, 400, "invalid_request_error", "context_length_exceeded"},
      {absl::StatusCode::kUnimplemented, 400, "invalid_request_error", "unsupported_parameter"},
      {absl::StatusCode::kUnauthenticated, 401, "invalid_request_error", "invalid_api_key"},
      {absl::StatusCode::kNotFound, 404, "invalid_request_error", "model_not_found"},
      {absl::StatusCode::kResourceExhausted, 413, "invalid_request_error", "request_too_large"},
      {absl::StatusCode::kUnavailable, 503, "server_error", "server_shutting_down"},
  };
  for (const Row& row : kTable) {
    if (row.code == status.code()) {
      return {row.http, ErrorBody(std::string(status.message()), row.type, row.name)};
    }
  }
  return {500, ErrorBody(std::string(status.message()), "server_error", "internal_error")};
}

}  // namespace tokvec::server
