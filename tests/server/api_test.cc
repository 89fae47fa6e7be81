// The request parsers (server/api.h): every accepted shape of OpenAI's `input`, and a table of bad bodies, each
// with the message a client gets; the error mapping; the float and base64 encodings.
#include "server/api.h"

#include <cstring>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tokvec::server {
namespace {

using ::testing::HasSubstr;

TEST(ParseEmbeddingsRequestTest, EveryInputShape) {
  auto one = ParseEmbeddingsRequest(R"({"input": "a cat", "model": "m"})");
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->inputs.size(), 1u);
  EXPECT_EQ(one->inputs[0].text, "a cat");
  EXPECT_FALSE(one->inputs[0].is_ids);
  EXPECT_EQ(one->model, "m");
  EXPECT_EQ(one->format, EncodingFormat::kFloat);

  auto texts = ParseEmbeddingsRequest(R"({"input": ["a", "b c"], "encoding_format": "base64"})");
  ASSERT_TRUE(texts.ok()) << texts.status();
  ASSERT_EQ(texts->inputs.size(), 2u);
  EXPECT_EQ(texts->inputs[1].text, "b c");
  EXPECT_EQ(texts->format, EncodingFormat::kBase64);

  auto ids = ParseEmbeddingsRequest(R"({"input": [1, 2, 4294967295]})");
  ASSERT_TRUE(ids.ok()) << ids.status();
  ASSERT_EQ(ids->inputs.size(), 1u);
  EXPECT_TRUE(ids->inputs[0].is_ids);
  EXPECT_EQ(ids->inputs[0].ids, (std::vector<uint32_t>{1, 2, 4294967295u}));

  auto arrays = ParseEmbeddingsRequest(R"({"input": [[1, 2], [3]], "truncate": true, "dimensions": 32})");
  ASSERT_TRUE(arrays.ok()) << arrays.status();
  ASSERT_EQ(arrays->inputs.size(), 2u);
  EXPECT_EQ(arrays->inputs[1].ids, std::vector<uint32_t>{3});
  EXPECT_TRUE(arrays->truncate);
  EXPECT_EQ(arrays->dimensions, 32);
}

struct BadBody {
  const char* name;
  const char* body;
  const char* message;
};

void PrintTo(const BadBody& row, std::ostream* os) { *os << row.name; }

class BadEmbeddingsBodyTest : public ::testing::TestWithParam<BadBody> {};

TEST_P(BadEmbeddingsBodyTest, IsInvalidArgumentWithAClearMessage) {
  auto r = ParseEmbeddingsRequest(GetParam().body);
  ASSERT_FALSE(r.ok()) << GetParam().body;
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, BadEmbeddingsBodyTest,
    ::testing::Values(
        BadBody{"Empty", "", "not valid JSON"}, BadBody{"Truncated", R"({"input": "a)", "not valid JSON"},
        BadBody{"Binary", "\xff\xfe\x00", "not valid JSON"}, BadBody{"Array", R"(["a"])", "must be a JSON object"},
        BadBody{"NoInput", R"({"model": "m"})", "'input' is missing"},
        BadBody{"NumberInput", R"({"input": 3})", "'input' must be a string or an array"},
        BadBody{"ObjectInput", R"({"input": {"a": 1}})", "not an object"},
        BadBody{"EmptyArray", R"({"input": []})", "'input' is an empty array"},
        BadBody{"EmptyString", R"({"input": ""})", "'input' is an empty string"},
        BadBody{"EmptyStringItem", R"({"input": ["a", ""]})", "'input'[1] is an empty string"},
        BadBody{"Mixed", R"({"input": ["a", 3]})", "'input'[1] is an integer"},
        BadBody{"MixedIds", R"({"input": [1, "a"]})", "'input'[1] must be a token id"},
        BadBody{"NegativeId", R"({"input": [1, -2]})", "'input'[1] is -2, not a token id"},
        BadBody{"FractionalId", R"({"input": [1.5]})", "'input'[0] must be a token id (an integer), not a number"},
        BadBody{"HugeId", R"({"input": [4294967296]})", "not a token id"},
        BadBody{"EmptyIdArray", R"({"input": [[1], []]})", "'input'[1] is an empty array of ids"},
        BadBody{"NestedTooDeep", R"({"input": [[[1]]]})", "'input'[0][0] must be a token id"},
        BadBody{"ModelNumber", R"({"input": "a", "model": 3})", "'model' must be a string"},
        BadBody{"Format", R"({"input": "a", "encoding_format": "int8"})", "'encoding_format' is 'int8'"},
        BadBody{"FormatType", R"({"input": "a", "encoding_format": 1})", "'encoding_format' must be a string"},
        BadBody{"Dimensions", R"({"input": "a", "dimensions": "8"})", "'dimensions' must be an integer"},
        BadBody{"Truncate", R"({"input": "a", "truncate": "yes"})", "'truncate' must be true or false"},
        BadBody{"Direction", R"({"input": "a", "truncation_direction": "up"})", "'truncation_direction' is 'up'"},
        BadBody{"PromptName", R"({"input": "a", "prompt_name": 3})", "'prompt_name' must be a string"},
        BadBody{"Pooling", R"({"input": "a", "pooling": "median"})", "'pooling' is 'median'"},
        BadBody{"Normalize", R"({"input": "a", "normalize": 1})", "'normalize' must be true or false"},
        BadBody{"Precision", R"({"input": "a", "precision": "fp8"})", "'precision' is 'fp8'"},
        BadBody{"InputAndInputs", R"({"input": "a", "inputs": ["b"]})", "give 'input' or 'inputs', not both"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ParseEmbeddingsRequestTest, TooManyInputs) {
  std::string body = R"({"input": [)";
  for (int i = 0; i < 2049; ++i) body += i ? ",\"a\"" : "\"a\"";
  auto r = ParseEmbeddingsRequest(body + "]}");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("2049 items; at most 2048"));
}

TEST(ParseEmbeddingsRequestTest, TeiFields) {
  absl::StatusOr<EmbeddingsRequest> r = ParseEmbeddingsRequest(
      R"({"inputs": ["a", "b"], "truncate": true, "truncation_direction": "Left", "prompt_name": "query",
          "normalize": false, "pooling": "cls", "precision": "ubinary", "dimensions": 8})");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->inputs.size(), 2u);
  EXPECT_EQ(r->truncate, true);
  EXPECT_EQ(r->truncation_direction, "left");
  EXPECT_EQ(r->prompt_name, "query");
  EXPECT_EQ(r->normalize, false);
  EXPECT_EQ(r->pooling, "cls");
  EXPECT_EQ(r->precision, "ubinary");
  EXPECT_EQ(r->dimensions, 8);
  absl::StatusOr<EmbeddingsRequest> plain = ParseEmbeddingsRequest(R"({"input": "a"})");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->truncate.has_value());  // the server's --auto-truncate decides
  EXPECT_FALSE(plain->normalize.has_value());
}

TEST(ParseSearchRequestTest, TextsOrVectorsAndTheirErrors) {
  absl::StatusOr<SearchRequest> texts = ParseSearchRequest(R"({"input": ["a cat"], "k": 3, "metric": "dot"})");
  ASSERT_TRUE(texts.ok()) << texts.status();
  EXPECT_EQ(texts->embed.inputs.size(), 1u);
  EXPECT_EQ(texts->k, 3);
  EXPECT_EQ(texts->metric, "dot");
  absl::StatusOr<SearchRequest> vectors = ParseSearchRequest(R"({"vectors": [[1, 2.5], [0, -1]]})");
  ASSERT_TRUE(vectors.ok()) << vectors.status();
  EXPECT_EQ(vectors->vectors, (std::vector<std::vector<float>>{{1, 2.5f}, {0, -1}}));
  EXPECT_EQ(vectors->k, 10);
  for (const auto& [body, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"vectors": [[1], [1, 2]]})", "'vectors'[1] must be an array of numbers as long as"},
           {R"({"vectors": [["x"]]})", "holds a string, not a number"},
           {R"({"vectors": []})", "non-empty array"},
           {R"({"vectors": [[1]], "input": "a"})", "not both"},
           {R"({"input": "a", "k": 0})", "'k' is 0"},
           {R"({"input": "a", "rescore_multiplier": -1})", "'rescore_multiplier' is -1"},
           {R"({"input": "a", "metric": "l2"})", "'metric' is 'l2'"},
           {R"({"k": 2})", "'input' is missing"}}) {
    absl::StatusOr<SearchRequest> r = ParseSearchRequest(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << body;
    EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr(message)) << body;
  }
}

TEST(ParseRerankRequestTest, TeiAndCohereShapesAndTheirErrors) {
  absl::StatusOr<RerankRequest> tei = ParseRerankRequest(
      R"({"query": "q", "texts": ["a", "b"], "raw_scores": true, "return_text": true, "truncate": true,
          "truncation_direction": "Right"})", false);
  ASSERT_TRUE(tei.ok()) << tei.status();
  EXPECT_EQ(tei->query, "q");
  EXPECT_EQ(tei->texts, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(tei->raw_scores);
  EXPECT_TRUE(tei->return_text);
  absl::StatusOr<RerankRequest> cohere = ParseRerankRequest(
      R"({"model": "m", "query": "q", "documents": ["a", {"text": "b"}], "top_n": 1, "return_documents": true})",
      true);
  ASSERT_TRUE(cohere.ok()) << cohere.status();
  EXPECT_EQ(cohere->texts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(cohere->top_n, 1);
  EXPECT_EQ(cohere->model, "m");
  EXPECT_TRUE(cohere->return_text);
  for (const auto& [body, is_cohere, message] : std::vector<std::tuple<std::string, bool, std::string>>{
           {R"({"texts": ["a"]})", false, "'query' is missing"},
           {R"({"query": 1, "texts": ["a"]})", false, "'query' must be a string"},
           {R"({"query": "q"})", false, "'texts' must be a non-empty array of strings"},
           {R"({"query": "q", "texts": []})", false, "'texts' must be a non-empty array"},
           {R"({"query": "q", "texts": [1]})", false, "'texts'[0] must be a string, not an integer"},
           {R"({"query": "q", "texts": [{"text": "a"}]})", false, "'texts'[0] must be a string"},
           {R"({"query": "q", "documents": [{"txt": "a"}]})", true, "'documents'[0] must be a string"},
           {R"({"query": "q", "documents": ["a"], "top_n": -1})", true, "'top_n' is -1"},
           {R"({"query": "q", "texts": ["a"], "raw_scores": "yes"})", false, "'raw_scores' must be true or false"},
           {R"({"query": "q", "texts": ["a"], "truncation_direction": "left"})", false, "longest-first"},
           {R"([1])", false, "must be a JSON object"}}) {
    absl::StatusOr<RerankRequest> r = ParseRerankRequest(body, is_cohere);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << body;
    EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr(message)) << body;
  }
}

TEST(ParseOtherRequestsTest, TokenizeDetokenizeAttention) {
  auto t = ParseTokenizeRequest(R"({"content": "hi", "add_special": true, "with_pieces": true})");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->text, "hi");
  EXPECT_TRUE(t->add_special);
  EXPECT_TRUE(t->with_pieces);
  EXPECT_EQ(ParseTokenizeRequest(R"({"text": "yo"})")->text, "yo");
  EXPECT_THAT(std::string(ParseTokenizeRequest(R"({"txt": "yo"})").status().message()),
              HasSubstr("'content' (or 'text') is missing"));
  EXPECT_THAT(std::string(ParseTokenizeRequest(R"({"content": 1})").status().message()),
              HasSubstr("'content' must be a string"));

  auto d = ParseDetokenizeRequest(R"({"tokens": [5, 6]})");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ids, (std::vector<uint32_t>{5, 6}));
  EXPECT_THAT(std::string(ParseDetokenizeRequest(R"({"tokens": "5"})").status().message()),
              HasSubstr("'tokens' must be an array"));
  EXPECT_THAT(std::string(ParseDetokenizeRequest(R"({"tokens": [-1]})").status().message()),
              HasSubstr("'tokens'[0] is -1"));

  auto a = ParseAttentionRequest(R"({"text": "a cat", "layer": 1, "head": -1})");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->layer, 1);
  EXPECT_EQ(a->head, -1);
  EXPECT_THAT(std::string(ParseAttentionRequest(R"({"text": ""})").status().message()), HasSubstr("'text' is empty"));
  EXPECT_THAT(std::string(ParseAttentionRequest(R"({"text": "a", "layer": 0.5})").status().message()),
              HasSubstr("'layer' must be an integer"));
}

TEST(EncodeEmbeddingTest, FloatIsShortestRoundTripAndBase64IsLittleEndianFloat32) {
  const float v[3] = {0.1f, -2.5f, 1e-8f};
  EXPECT_EQ(EncodeEmbedding(v, 3, EncodingFormat::kFloat), "[0.1,-2.5,1e-08]");
  // Each printed float parses back to the same float32.
  nlohmann::json parsed = nlohmann::json::parse(EncodeEmbedding(v, 3, EncodingFormat::kFloat));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(static_cast<float>(parsed[i].get<double>()), v[i]);
  const std::string b64 = EncodeEmbedding(v, 3, EncodingFormat::kBase64);
  ASSERT_EQ(b64.front(), '"');
  std::string bytes;
  ASSERT_TRUE(absl::Base64Unescape(b64.substr(1, b64.size() - 2), &bytes));
  ASSERT_EQ(bytes.size(), 12u);
  // 0.1f is 0x3DCCCCCD: little-endian bytes CD CC CC 3D.
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), 0xCD);
  EXPECT_EQ(static_cast<uint8_t>(bytes[3]), 0x3D);
  float back[3];
  std::memcpy(back, bytes.data(), 12);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(back[i], v[i]);
}

TEST(ToHttpErrorTest, OpenAiShapeAndStatusTable) {
  HttpError e = ToHttpError(absl::NotFoundError("model 'x' is not served"));
  EXPECT_EQ(e.status, 404);
  nlohmann::json body = nlohmann::json::parse(e.body);
  EXPECT_EQ(body["error"]["message"], "model 'x' is not served");
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["code"], "model_not_found");
  EXPECT_TRUE(body["error"]["param"].is_null());
  EXPECT_EQ(ToHttpError(absl::InvalidArgumentError("")).status, 400);
  EXPECT_EQ(ToHttpError(absl::OutOfRangeError("")).status, 400);
  EXPECT_EQ(ToHttpError(absl::UnimplementedError("")).status, 400);
  EXPECT_EQ(ToHttpError(absl::UnauthenticatedError("")).status, 401);
  EXPECT_EQ(ToHttpError(absl::ResourceExhaustedError("")).status, 413);
  EXPECT_EQ(ToHttpError(absl::UnavailableError("")).status, 503);
  EXPECT_EQ(ToHttpError(absl::InternalError("")).status, 500);
}

}  // namespace
}  // namespace tokvec::server
