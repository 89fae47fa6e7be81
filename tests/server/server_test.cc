// The HTTP server in-process on 127.0.0.1 with an ephemeral port (server/server.h), driven by httplib's client:
// served vectors equal `tokvec embed --lines` (EmbedTexts) bit for bit in float, base64 and from ids; the error
// table (status, OpenAI code, message); the API key; a slow client does not stall others; Stop() finishes the
// requests in flight.
#include "server/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "pipeline/cross_encoder.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "embeddings/npy.h"
#include "kernels/low_precision_linear.h"
#include "pipeline/pooling.h"
#include "retrieval/quantize.h"
#include "retrieval/vector_search.h"

namespace tokvec::server {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

std::string ModelPath(const std::string& name) {
  return std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/" + name;
}

// A server running on its own thread for the test's lifetime.
class RunningServer {
 public:
  explicit RunningServer(ServerOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    options.log = false;
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(options);
    EXPECT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    absl::StatusOr<int> port = server_->Bind();
    EXPECT_TRUE(port.ok()) << port.status();
    port_ = *port;
    thread_ = std::thread([this] { EXPECT_TRUE(server_->Run().ok()); });
  }
  ~RunningServer() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    server_->Stop();
    thread_.join();
  }
  int port() const { return port_; }
  httplib::Client Client() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30, 0);
    return client;
  }

 private:
  std::unique_ptr<Server> server_;
  int port_ = 0;
  std::thread thread_;
};

ServerOptions TwoModels() {
  return {.models = {ModelPath("hf_roberta_f32"), ModelPath("hf_gpt2_f32")}, .max_body_bytes = 4096};
}

Json Post(const httplib::Client& const_client, const std::string& path, const std::string& body, int* status) {
  httplib::Client& client = const_cast<httplib::Client&>(const_client);
  httplib::Result r = client.Post(path, body, "application/json");
  EXPECT_TRUE(r) << "no response for " << path;
  if (!r) return {};
  *status = r->status;
  return Json::parse(r->body);
}

std::vector<float> FromBase64(const std::string& b64) {
  std::string bytes;
  EXPECT_TRUE(absl::Base64Unescape(b64, &bytes));
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(ServerTest, EmbeddingsEqualEmbedLinesInFloatBase64AndFromIds) {
  RunningServer server(TwoModels());
  httplib::Client client = server.Client();
  const std::vector<std::string> texts = {"the cat sat", "a dog ran far away", "x", "the cat sat on the mat"};
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(ModelPath("hf_roberta_f32"));
  ASSERT_TRUE(dir.ok());
  std::vector<std::string_view> views(texts.begin(), texts.end());
  absl::StatusOr<std::vector<TextVectors>> expected =
      EmbedTexts(*dir, views, {.pooling = Pooling::kMean, .normalize = true});  // what `embed --lines` computes
  ASSERT_TRUE(expected.ok());

  int status = 0;
  Json floats = Post(client, "/v1/embeddings", Json{{"model", "hf_roberta_f32"}, {"input", texts}}.dump(), &status);
  ASSERT_EQ(status, 200) << floats.dump();
  Json b64 = Post(client, "/v1/embeddings",
                  Json{{"model", "hf_roberta_f32"}, {"input", texts}, {"encoding_format", "base64"}}.dump(), &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(floats["object"], "list");
  EXPECT_EQ(floats["model"], "hf_roberta_f32");
  int64_t tokens = 0;
  for (const auto& e : *expected) tokens += static_cast<int64_t>(e.ids.size());
  EXPECT_EQ(floats["usage"]["prompt_tokens"], tokens);
  EXPECT_EQ(floats["usage"]["total_tokens"], tokens);
  ASSERT_EQ(floats["data"].size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(floats["data"][i]["object"], "embedding");
    EXPECT_EQ(floats["data"][i]["index"], i);
    const std::vector<float>& want = (*expected)[i].vectors.storage();
    std::vector<float> got;
    for (const auto& x : floats["data"][i]["embedding"]) got.push_back(static_cast<float>(x.get<double>()));
    EXPECT_EQ(got, want) << i;
    EXPECT_EQ(FromBase64(b64["data"][i]["embedding"]), want) << i;
    // The same text as ids from /tokenize (no special tokens: the server adds them as for text).
    Json ids = Post(client, "/tokenize", Json{{"model", "hf_roberta_f32"}, {"content", texts[i]}}.dump(), &status);
    ASSERT_EQ(status, 200);
    Json from_ids = Post(client, "/v1/embeddings",
                         Json{{"model", "hf_roberta_f32"}, {"input", ids["tokens"]}, {"encoding_format", "base64"}}
                             .dump(),
                         &status);
    ASSERT_EQ(status, 200) << from_ids.dump();
    EXPECT_EQ(FromBase64(from_ids["data"][0]["embedding"]), want) << i;
  }
}

// --dtype bf16 / int8: the served vectors are those of the directory loaded in that precision (EmbedTexts' bits),
// not f32's, and /v1/models says which precision runs. Skipped on a CPU without the instructions.
TEST(ServerTest, DtypeServesTheReducedPrecisionModel) {
  for (const LinearDtype dtype : {LinearDtype::kBf16, LinearDtype::kInt8}) {
    const std::string name(LinearDtypeName(dtype));
    if (!CheckCpuSupports(dtype).ok()) {
      std::printf("[ skipped  ] --dtype %s: %s\n", name.c_str(),
                  std::string(CheckCpuSupports(dtype).message()).c_str());
      continue;
    }
    ServerOptions options = TwoModels();
    options.dtype = name;
    RunningServer server(options);
    httplib::Client client = server.Client();
    const std::vector<std::string> texts = {"the cat sat", "a dog ran far away", "the cat sat on the mat"};
    const std::vector<std::string_view> views(texts.begin(), texts.end());
    absl::StatusOr<ModelDirectory> low = ModelDirectory::Load(ModelPath("hf_roberta_f32"), dtype);
    absl::StatusOr<ModelDirectory> f32 = ModelDirectory::Load(ModelPath("hf_roberta_f32"));
    ASSERT_TRUE(low.ok() && f32.ok());
    const EmbedTextsOptions mean{.pooling = Pooling::kMean, .normalize = true};
    absl::StatusOr<std::vector<TextVectors>> want = EmbedTexts(*low, views, mean);
    absl::StatusOr<std::vector<TextVectors>> full = EmbedTexts(*f32, views, mean);
    ASSERT_TRUE(want.ok() && full.ok());
    int status = 0;
    Json got = Post(client, "/v1/embeddings",
                    Json{{"model", "hf_roberta_f32"}, {"input", texts}, {"encoding_format", "base64"}}.dump(), &status);
    ASSERT_EQ(status, 200) << got.dump();
    for (size_t i = 0; i < texts.size(); ++i) {
      EXPECT_EQ(FromBase64(got["data"][i]["embedding"]), (*want)[i].vectors.storage()) << name << " " << i;
      EXPECT_NE((*want)[i].vectors.storage(), (*full)[i].vectors.storage()) << name << ": ran in f32";
    }
    httplib::Result models = client.Get("/v1/models");
    ASSERT_TRUE(models);
    const Json listed = Json::parse(models->body);
    for (const auto& model : listed["data"]) EXPECT_EQ(model["dtype"], name) << model["id"];
  }
  ServerOptions unknown = TwoModels();
  unknown.dtype = "fp8";
  EXPECT_THAT(std::string(Server::Create(unknown).status().message()), HasSubstr("unknown dtype 'fp8'"));
}

// A sentence-transformers model with Dense modules after its pooling (hf_bert_dense: 32 -> 24 -> 16): served
// vectors have the last module's width and equal EmbedTexts' bits; asking for a pooling gives the transformer's
// pooled vectors (32 wide), as `embed --pooling cls` does.
TEST(ServerTest, DenseModulesSetTheWidth) {
  RunningServer server({.models = {ModelPath("hf_bert_dense")}});
  httplib::Client client = server.Client();
  int status = 0;
  const std::vector<std::string> texts = {"a cat", "the dog sat on the mat"};
  Json out = Post(client, "/v1/embeddings", Json{{"model", "hf_bert_dense"}, {"input", texts}}.dump(), &status);
  ASSERT_EQ(status, 200) << out.dump();
  absl::StatusOr<ModelDirectory> dir = ModelDirectory::Load(ModelPath("hf_bert_dense"));
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<PoolingChoice> choice = ChoosePooling(*dir, "auto", false);
  ASSERT_TRUE(choice.ok());
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  absl::StatusOr<std::vector<TextVectors>> expected =
      EmbedTexts(*dir, views, {.pooling = choice->pooling, .normalize = choice->normalize, .dense = choice->dense});
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<float> got = out["data"][i]["embedding"].get<std::vector<float>>();
    ASSERT_EQ(got.size(), 16u);
    EXPECT_EQ(got, std::vector<float>((*expected)[i].vectors.data(), (*expected)[i].vectors.data() + 16));
  }
  Json cls = Post(client, "/v1/embeddings", Json{{"model", "hf_bert_dense"}, {"input", "a cat"}, {"pooling", "cls"}}
                                                .dump(), &status);
  ASSERT_EQ(status, 200) << cls.dump();
  EXPECT_EQ(cls["data"][0]["embedding"].size(), 32u);
  Json too_wide = Post(client, "/v1/embeddings",
                       Json{{"model", "hf_bert_dense"}, {"input", "a cat"}, {"dimensions", 20}}.dump(), &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(too_wide.dump(), HasSubstr("gives 16-dimensional vectors"));
  httplib::Result models = client.Get("/v1/models");
  ASSERT_TRUE(models);
  EXPECT_EQ(Json::parse(models->body)["data"][0]["dimensions"], 16);
}

TEST(ServerTest, TokenizeDetokenizeModelsHealthMetrics) {
  RunningServer server(TwoModels());
  httplib::Client client = server.Client();
  int status = 0;
  Json t = Post(client, "/tokenize",
                R"({"model": "hf_gpt2_f32", "content": "a cat\n", "with_pieces": true})", &status);
  ASSERT_EQ(status, 200) << t.dump();
  ASSERT_EQ(t["tokens"].size(), 3u);
  EXPECT_EQ(t["pieces"][1]["piece"], "Ġcat");
  EXPECT_EQ(t["pieces"][1]["text"], "␣cat");
  EXPECT_EQ(t["pieces"][2]["text"], "⏎");
  EXPECT_EQ(t["pieces"][1]["offset"], Json::array({1, 5}));
  Json special = Post(client, "/tokenize", R"({"model": "hf_roberta_f32", "text": "a cat", "add_special": true})",
                      &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(special["tokens"].front(), 0);  // <s>
  EXPECT_EQ(special["tokens"].back(), 2);   // </s>
  Json d = Post(client, "/detokenize", Json{{"model", "hf_gpt2_f32"}, {"tokens", t["tokens"]}}.dump(), &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(d["content"], "a cat\n");

  httplib::Result models = client.Get("/v1/models");
  ASSERT_TRUE(models);
  Json m = Json::parse(models->body);
  ASSERT_EQ(m["data"].size(), 2u);
  EXPECT_EQ(m["data"][0]["id"], "hf_roberta_f32");
  EXPECT_EQ(m["data"][0]["pooling"], "mean");
  EXPECT_EQ(m["data"][1]["dimensions"], 32);
  EXPECT_EQ(m["data"][1]["dtype"], "f32");
  httplib::Result health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  // A request is counted by httplib's logger, which runs after its response has been sent: under load the
  // client can ask /metrics before the second /tokenize is counted, so wait (up to 2 s) for the count.
  const std::string counted = "tokvec_requests_total{path=\"/tokenize\",status=\"200\"} 2";
  httplib::Result metrics = client.Get("/metrics");
  for (int attempt = 0; attempt < 200 && metrics && metrics->body.find(counted) == std::string::npos; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    metrics = client.Get("/metrics");
  }
  ASSERT_TRUE(metrics);
  EXPECT_THAT(metrics->body, HasSubstr(counted));
  EXPECT_THAT(metrics->body, HasSubstr("tokvec_request_seconds_bucket{le=\"+Inf\"}"));
  EXPECT_THAT(metrics->body, HasSubstr("tokvec_queue_length{model=\"hf_gpt2_f32\"} 0"));
  httplib::Result page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_THAT(page->body, HasSubstr("<canvas id=\"heatmap\""));
  EXPECT_THAT(page->get_header_value("Content-Type"), HasSubstr("text/html"));
}

TEST(ServerTest, AttentionRowsSumToOneAndAreCausalForGpt2) {
  RunningServer server(TwoModels());
  httplib::Client client = server.Client();
  int status = 0;
  Json a = Post(client, "/v1/attention", R"({"model": "hf_gpt2_f32", "text": "a cat sat", "layer": 1, "head": 2})",
                &status);
  ASSERT_EQ(status, 200) << a.dump();
  const size_t t = a["tokens"].size();
  ASSERT_GE(t, 3u);
  EXPECT_EQ(a["tokens"][1], "␣cat");
  EXPECT_EQ(a["spellings"][1], "Ġcat");
  for (size_t i = 0; i < t; ++i) {
    double sum = 0;
    for (size_t j = 0; j < t; ++j) {
      sum += a["weights"][i][j].get<double>();
      if (j > i) EXPECT_EQ(a["weights"][i][j].get<double>(), 0.0);
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

struct ErrorRow {
  const char* name;
  const char* path;
  std::string body;
  int status;
  const char* code;
  const char* message;
};

std::string LongText() {
  std::string s;
  for (int i = 0; i < 60; ++i) s += "cat ";
  return s;
}

TEST(ServerTest, ErrorTable) {
  RunningServer server(TwoModels());
  httplib::Client client = server.Client();
  const std::vector<ErrorRow> rows = {
      {"MalformedJson", "/v1/embeddings", "{\"input\": ", 400, "invalid_value", "not valid JSON"},
      {"WrongType", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": 5})", 400, "invalid_value",
       "'input' must be a string or an array"},
      {"NoModelWithTwo", "/v1/embeddings", R"({"input": "a"})", 400, "invalid_value", "'model' is missing"},
      {"UnknownModel", "/v1/embeddings", R"({"model": "gpt-4", "input": "a"})", 404, "model_not_found",
       "model 'gpt-4' is not served here"},
      {"Dimensions", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "a", "dimensions": 33})", 400,
       "invalid_value",
       "'dimensions' is 33; model 'hf_roberta_f32' gives 32-dimensional vectors, so it must be 1 to 32"},
      {"ZeroDimensions", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "a", "dimensions": 0})", 400,
       "invalid_value", "'dimensions' is 0"},
      {"UnknownPromptName", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "a", "prompt_name": "q"})", 400,
       "invalid_value", "unknown prompt name 'q'"},
      {"TruncationDirection", "/embed", R"({"model": "hf_roberta_f32", "inputs": "a", "truncation_direction": "Up"})",
       400, "invalid_value", "'truncation_direction' is 'Up'"},
      {"PoolingNone", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "a", "pooling": "none"})", 400,
       "invalid_value", "'pooling' is 'none'"},
      {"UnknownPrecision", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "a", "precision": "int4"})", 400,
       "invalid_value", "'precision' is 'int4'"},
      {"PrecisionBase64", "/v1/embeddings",
       R"({"model": "hf_roberta_f32", "input": "a", "precision": "int8", "encoding_format": "base64"})",
       400, "invalid_value", "send \"encoding_format\": \"float\" with it"},
      {"InputAndInputs", "/embed", R"({"model": "hf_roberta_f32", "input": "a", "inputs": "b"})", 400,
       "invalid_value", "give 'input' or 'inputs', not both"},
      {"EmbedAllPooling", "/embed_all", R"({"model": "hf_roberta_f32", "inputs": "a", "pooling": "mean"})", 400,
       "invalid_value", "/embed_all gives every token's vector"},
      {"SearchWithoutIndex", "/search", R"({"model": "hf_roberta_f32", "input": "a"})", 400, "invalid_value",
       "this server has no index to search; start it with --index"},
      {"TooLong", "/v1/embeddings", Json{{"model", "hf_roberta_f32"}, {"input", LongText()}}.dump(), 400,
       "context_length_exceeded", "more than the 48 this server accepts for model 'hf_roberta_f32'; shorten it or "
       "send \"truncate\": true"},
      {"IdOutsideVocabulary", "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": [5, 100000]})", 400,
       "invalid_value", "token id 100000 (at 1) is outside the vocabulary"},
      {"NoPooling", "/v1/embeddings", R"({"model": "hf_gpt2_f32", "input": "a"})", 400, "invalid_value",
       "has no pooling"},
      {"BodyTooLarge", "/v1/embeddings", Json{{"input", std::string(5000, 'a')}}.dump(), 413, "request_too_large",
       "larger than this server's limit of 4096 bytes"},
      {"UnknownRoute", "/v2/embeddings", "{}", 404, "unknown_url", "no route POST /v2/embeddings"},
      {"DetokenizeBadId", "/detokenize", R"({"model": "hf_gpt2_f32", "tokens": [1, 100000]})", 400,
       "invalid_value", "100000"},
      {"TokenizeNoText", "/tokenize", R"({"model": "hf_gpt2_f32"})", 400, "invalid_value",
       "'content' (or 'text') is missing"},
      {"AttentionLayer", "/v1/attention", R"({"model": "hf_gpt2_f32", "text": "a", "layer": 2})", 400,
       "invalid_value", "'layer' is 2; model 'hf_gpt2_f32' has layers 0 to 1"},
      {"AttentionHead", "/v1/attention", R"({"model": "hf_gpt2_f32", "text": "a", "head": 4})", 400,
       "invalid_value", "'head' is 4"},
  };
  for (const ErrorRow& row : rows) {
    int status = 0;
    Json body = Post(client, row.path, row.body, &status);
    EXPECT_EQ(status, row.status) << row.name << ": " << body.dump();
    EXPECT_EQ(body["error"]["code"], row.code) << row.name;
    EXPECT_EQ(body["error"]["type"], "invalid_request_error") << row.name;
    EXPECT_THAT(body["error"]["message"].get<std::string>(), HasSubstr(row.message)) << row.name;
  }
  // With "truncate": true the over-long input is embedded from its first 48 tokens (<s> ... </s>).
  int status = 0;
  Json truncated = Post(client, "/v1/embeddings",
                        Json{{"model", "hf_roberta_f32"}, {"input", LongText()}, {"truncate", true}}.dump(), &status);
  ASSERT_EQ(status, 200) << truncated.dump();
  EXPECT_EQ(truncated["usage"]["prompt_tokens"], 48);
  // dimensions equal to the model's width is accepted (the vectors as they are).
  Json same = Post(client, "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "a", "dimensions": 32})",
                   &status);
  EXPECT_EQ(status, 200) << same.dump();
}

TEST(ServerTest, ApiKey) {
  ServerOptions options = TwoModels();
  options.api_key = "sekrit";
  RunningServer server(options);
  httplib::Client client = server.Client();
  httplib::Result none = client.Get("/v1/models");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_THAT(none->body, HasSubstr("an API key is needed"));
  EXPECT_THAT(none->body, HasSubstr("invalid_api_key"));
  httplib::Result wrong = client.Get("/v1/models", {{"Authorization", "Bearer nope"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_THAT(wrong->body, HasSubstr("the API key is not valid"));
  httplib::Result right = client.Get("/v1/models", {{"Authorization", "Bearer sekrit"}});
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200);
  httplib::Result health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// A raw connection that sends half a request and then nothing (a slow or stuck client).
int ConnectAndStall(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const char partial[] = "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"input\": ";
  EXPECT_GT(write(fd, partial, sizeof(partial) - 1), 0);
  return fd;
}

TEST(ServerTest, StalledAndVanishedClientsDoNotHoldUpOthers) {
  RunningServer server(TwoModels());
  std::vector<int> stalled;
  for (int i = 0; i < 8; ++i) stalled.push_back(ConnectAndStall(server.port()));
  close(ConnectAndStall(server.port()));  // one that goes away mid-request
  httplib::Client client = server.Client();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    int status = 0;
    Post(client, "/v1/embeddings", R"({"model": "hf_roberta_f32", "input": "the cat"})", &status);
    EXPECT_EQ(status, 200);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 3.0) << "requests waited for the stalled connections";
  for (int fd : stalled) close(fd);
}

// Stop() while 8 requests are being handled (the server's in-flight gauge says so): every one is answered.
TEST(ServerTest, StopFinishesRequestsInFlight) {
  ServerOptions options = TwoModels();
  options.max_body_bytes = 1 << 20;
  options.max_batch_tokens = 1;  // one request per forward pass, so they queue
  auto server = std::make_unique<RunningServer>(options);
  const std::string body =
      Json{{"model", "hf_roberta_f32"}, {"input", std::vector<std::string>(200, "the cat sat on the mat")}}.dump();
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      httplib::Client client = server->Client();
      httplib::Result r = client.Post("/v1/embeddings", body, "application/json");
      if (r && r->status == 200 && Json::parse(r->body)["data"].size() == 200) ++ok;
    });
  }
  httplib::Client probe = server->Client();
  // Every request has arrived when the ones in flight (the probe included) and the ones answered make 9.
  bool arrived = false;
  for (int tries = 0; tries < 20000 && !arrived; ++tries) {  // at most ~20 s
    const int answered = ok.load();
    httplib::Result m = probe.Get("/metrics");
    if (!m) {
      ADD_FAILURE() << "GET /metrics failed: " << httplib::to_string(m.error());
      break;
    }
    const std::string gauge = "\ntokvec_requests_in_flight ";
    const size_t at = m->body.find(gauge);
    if (at == std::string::npos) {
      ADD_FAILURE() << "no in-flight gauge in /metrics";
      break;
    }
    arrived = std::atoi(m->body.c_str() + at + gauge.size()) + answered >= 9;
    if (!arrived) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(arrived);
  server->Stop();
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), 8);
}

}  // namespace
}  // namespace tokvec::server

namespace tokvec::server {
namespace {

// The retrieval fields and routes against the library computing the same thing: dimensions, precision, per-request
// pooling, /embed (TEI), /embed_all, truncation from the left, prompts, /search.
// /rerank (TEI) and /v1/rerank (Cohere / Jina) give the library's ranking (pipeline/cross_encoder.h) of the
// PyTorch-checked cross-encoder; a model without a head says so.
TEST(ServerTest, RerankRoutesEqualTheLibrary) {
  const std::vector<std::string> docs = {"the lazy dog", "your cat is a lovely cat", "東 tokvec", "the quick fox"};
  const std::string query = "Your cat is a lovely cat";
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(ModelPath("hf_bert_cross"));
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  const std::vector<std::string_view> queries(docs.size(), query), views(docs.begin(), docs.end());
  absl::StatusOr<std::vector<std::vector<float>>> logits = ranker->Logits(queries, views, 1);
  ASSERT_TRUE(logits.ok()) << logits.status();
  RunningServer server({.models = {ModelPath("hf_bert_cross"), ModelPath("hf_bert_f32")}});
  httplib::Client client = server.Client();
  int status = 0;
  Json tei = Post(client, "/rerank",
                  Json{{"model", "hf_bert_cross"}, {"query", query}, {"texts", docs}, {"return_text", true}}.dump(),
                  &status);
  ASSERT_EQ(status, 200) << tei.dump();
  const std::vector<RankedDocument> want = RankDocuments(*logits, false);
  ASSERT_EQ(tei.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    EXPECT_EQ(tei[r]["index"].get<size_t>(), want[r].index);
    EXPECT_FLOAT_EQ(tei[r]["score"].get<float>(), want[r].score);
    EXPECT_EQ(tei[r]["text"].get<std::string>(), docs[want[r].index]);
  }
  Json cohere = Post(client, "/v1/rerank",
                     Json{{"model", "hf_bert_cross"}, {"query", query}, {"documents", docs}, {"top_n", 2}}.dump(),
                     &status);
  ASSERT_EQ(status, 200) << cohere.dump();
  ASSERT_EQ(cohere["results"].size(), 2u);
  const std::vector<RankedDocument> raw = RankDocuments(*logits, true, 2);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(cohere["results"][r]["index"].get<size_t>(), want[r].index);
    EXPECT_FLOAT_EQ(cohere["results"][r]["relevance_score"].get<float>(), want[r].score);
    EXPECT_FALSE(cohere["results"][r].contains("document"));
  }
  EXPECT_EQ(cohere["model"], "hf_bert_cross");
  Json raw_scores = Post(client, "/rerank",
                         Json{{"model", "hf_bert_cross"}, {"query", query}, {"texts", docs}, {"raw_scores", true}}
                             .dump(),
                         &status);
  ASSERT_EQ(status, 200) << raw_scores.dump();
  EXPECT_FLOAT_EQ(raw_scores[0]["score"].get<float>(), raw[0].score);
  Json refused = Post(client, "/rerank", Json{{"model", "hf_bert_f32"}, {"query", "q"}, {"texts", {"a"}}}.dump(),
                      &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(refused["error"]["message"].get<std::string>(),
              HasSubstr("model 'hf_bert_f32' cannot rerank: '"));
}

// /predict (TEI) gives every label's score, best first, equal to the library's softmax over the PyTorch-checked
// three-label classifier's logits; a single text, one pair and a batch mixing both.
TEST(ServerTest, PredictEqualsTheLibrary) {
  absl::StatusOr<CrossEncoder> classifier = CrossEncoder::Load(ModelPath("hf_distilbert_nli"));
  ASSERT_TRUE(classifier.ok()) << classifier.status();
  const std::vector<std::string>& labels = classifier->head().labels();
  ASSERT_EQ(labels.size(), 3u);
  const std::vector<std::string_view> single = {"a cat sat on the mat"}, a = {"the dog"}, b = {"a lazy dog"};
  absl::StatusOr<std::vector<std::vector<float>>> single_logits = classifier->Logits(single, {}, 1);
  absl::StatusOr<std::vector<std::vector<float>>> pair_logits = classifier->Logits(a, b, 1);
  ASSERT_TRUE(single_logits.ok() && pair_logits.ok());
  RunningServer server({.models = {ModelPath("hf_distilbert_nli")}});
  httplib::Client client = server.Client();
  int status = 0;
  auto expect = [&](const Json& got, const std::vector<float>& logits, bool raw) {
    const std::vector<float> scores = ScoresOf(logits, raw);
    ASSERT_EQ(got.size(), scores.size()) << got.dump();
    for (size_t k = 0; k < got.size(); ++k) {
      const size_t label = std::find(labels.begin(), labels.end(), got[k]["label"].get<std::string>()) - labels.begin();
      ASSERT_LT(label, labels.size());
      EXPECT_FLOAT_EQ(got[k]["score"].get<float>(), scores[label]);
      if (k > 0) EXPECT_GE(got[k - 1]["score"].get<float>(), got[k]["score"].get<float>());
    }
  };
  Json one = Post(client, "/predict", Json{{"inputs", "a cat sat on the mat"}}.dump(), &status);
  ASSERT_EQ(status, 200) << one.dump();
  expect(one, (*single_logits)[0], false);
  Json pair = Post(client, "/predict", Json{{"inputs", {"the dog", "a lazy dog"}}, {"raw_scores", true}}.dump(),
                   &status);
  ASSERT_EQ(status, 200) << pair.dump();
  expect(pair, (*pair_logits)[0], true);
  Json batch = Post(client, "/predict",
                    Json{{"inputs", {{"the dog", "a lazy dog"}, {"a cat sat on the mat"}}}}.dump(), &status);
  ASSERT_EQ(status, 200) << batch.dump();
  ASSERT_EQ(batch.size(), 2u);
  expect(batch[0], (*pair_logits)[0], false);
  expect(batch[1], (*single_logits)[0], false);
  Json bad = Post(client, "/predict", Json{{"inputs", {{"a", "b", "c"}}}}.dump(), &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(bad.dump(), HasSubstr("'inputs'[0] must be one string or a pair of strings"));
}

TEST(ServerTest, RetrievalRoutesEqualTheLibrary) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "server_retrieval_model";
  std::filesystem::remove_all(dir);
  std::filesystem::copy(ModelPath("hf_roberta_f32"), dir, std::filesystem::copy_options::recursive);
  {
    std::ofstream(dir / "config_sentence_transformers.json") << R"({"prompts": {"query": "query: "}})";
  }
  absl::StatusOr<ModelDirectory> model = ModelDirectory::Load(dir.string());
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<std::string> texts = {"the cat sat", "a dog ran far away", "lovely mat", "your cat is lovely"};
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  auto embed = [&](EmbedTextsOptions options) {
    absl::StatusOr<std::vector<TextVectors>> r = EmbedTexts(*model, views, options);
    EXPECT_TRUE(r.ok()) << r.status();
    return *std::move(r);
  };
  const std::vector<TextVectors> pooled = embed({.pooling = Pooling::kMean, .normalize = true});
  // The index: the texts' own vectors.
  Matrix all(4, 32);
  for (int i = 0; i < 4; ++i) std::copy_n(pooled[i].vectors.data(), 32, all.row(i));
  const std::string index_path = (dir / "index.npy").string();
  {
    std::ofstream(index_path, std::ios::binary) << NpyFloat32(all.data(), {4, 32});
  }
  RunningServer server({.models = {dir.string()}, .index = index_path});
  httplib::Client client = server.Client();
  int status = 0;
  auto floats = [](const Json& row) { return row.get<std::vector<float>>(); };
  auto row_of = [](const Matrix& m, int64_t r) { return std::vector<float>(m.row(r), m.row(r) + m.cols()); };

  Json cut = Post(client, "/v1/embeddings",
                  Json{{"input", texts}, {"dimensions", 8}, {"encoding_format", "float"}}.dump(), &status);
  ASSERT_EQ(status, 200) << cut.dump();
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<Matrix> want = TruncateDimensions(pooled[i].vectors.view(), 8);
    EXPECT_EQ(floats(cut["data"][i]["embedding"]), row_of(*want, 0)) << i;
  }
  Json bits = Post(client, "/v1/embeddings",
                   Json{{"input", texts}, {"precision", "ubinary"}, {"encoding_format", "float"}}.dump(), &status);
  ASSERT_EQ(status, 200) << bits.dump();
  absl::StatusOr<QuantizedMatrix> want_bits = Quantize(all.view(), Precision::kUbinary, nullptr);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(bits["data"][i]["embedding"].get<std::vector<int>>(),
              std::vector<int>(want_bits->bytes.begin() + 4 * i, want_bits->bytes.begin() + 4 * (i + 1)));
  }
  const std::vector<TextVectors> cls = embed({.pooling = Pooling::kCls, .normalize = true});
  Json tei = Post(client, "/embed", Json{{"inputs", texts}, {"pooling", "cls"}}.dump(), &status);
  ASSERT_EQ(status, 200) << tei.dump();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(floats(tei[i]), row_of(cls[i].vectors, 0)) << i;
  const std::vector<TextVectors> tokens = embed({.pooling = Pooling::kNone});
  Json per_token = Post(client, "/embed_all", Json{{"inputs", texts}}.dump(), &status);
  ASSERT_EQ(status, 200) << per_token.dump();
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(per_token[i].size(), static_cast<size_t>(tokens[i].vectors.rows()));
    for (int64_t t = 0; t < tokens[i].vectors.rows(); ++t) {
      EXPECT_EQ(floats(per_token[i][t]), row_of(tokens[i].vectors, t));
    }
  }
  // Left truncation to the model's 48 tokens, and a prompt: the library's own options give the same bits.
  const std::string long_text = LongText() + "dog";
  Json left = Post(client, "/embed", Json{{"inputs", long_text}, {"truncate", true}, {"truncation_direction", "Left"},
                                          {"prompt_name", "query"}}.dump(),
                   &status);
  ASSERT_EQ(status, 200) << left.dump();
  const std::vector<std::string_view> one = {long_text};
  absl::StatusOr<std::vector<TextVectors>> want_left =
      EmbedTexts(*model, one, {.pooling = Pooling::kMean, .normalize = true, .prompt = "query: ",
                               .truncate = Truncation::kLeft, .max_length = 48});
  ASSERT_TRUE(want_left.ok()) << want_left.status();
  EXPECT_EQ(floats(left[0]), row_of((*want_left)[0].vectors, 0));
  // /search: each text finds itself first; the hits are the library's.
  Json found = Post(client, "/search", Json{{"input", texts}, {"k", 2}}.dump(), &status);
  ASSERT_EQ(status, 200) << found.dump();
  absl::StatusOr<std::vector<std::vector<SearchHit>>> hits =
      Search(all.view(), VectorIndex::FromMemory(NpyDtype::kFloat32, 4, 32, all.data()), {.k = 2});
  ASSERT_TRUE(hits.ok());
  for (int q = 0; q < 4; ++q) {
    EXPECT_EQ(found["data"][q]["hits"][0]["index"], q);
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(found["data"][q]["hits"][r]["index"], (*hits)[q][r].index);
      EXPECT_EQ(found["data"][q]["hits"][r]["score"].get<float>(), (*hits)[q][r].score);
    }
  }
  Json by_vector = Post(client, "/search", Json{{"vectors", {row_of(all, 2)}}, {"k", 1}}.dump(), &status);
  ASSERT_EQ(status, 200) << by_vector.dump();
  EXPECT_EQ(by_vector["data"][0]["hits"][0]["index"], 2);
  server.Stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tokvec::server
