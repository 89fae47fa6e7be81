// `tokvec serve`: model directories behind an HTTP API (cpp-httplib), OpenAI's embeddings endpoint included.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create({.models = {"models/tiny"}}));
//   TOKVEC_ASSIGN_OR_RETURN(int port, server->Bind());   // port 0 asks for a free one
//   std::thread stopper([&] { WaitForSigterm(); server->Stop(); });
//   TOKVEC_RETURN_IF_ERROR(server->Run());              // until Stop(); in-flight requests are finished
//
// Routes (README "serve"; the error table is docs/errors.md):
//   POST /v1/embeddings   OpenAI's request and response (api.h), batched across requests (batcher.h), with
//                         dimensions, prompt_name, truncate/truncation_direction, pooling and precision
//   POST /embed           text-embeddings-inference's: {"inputs", "normalize", "truncate", ...} -> [[floats]]
//   POST /embed_all       TEI's per-token vectors: -> [[[floats] per token] per input]
//   POST /search          exact top-k over the index loaded with --index (retrieval/vector_search.h)
//   POST /tokenize        {"content"|"text", "add_special", "with_pieces"} -> {"tokens": [ids], "pieces"}
//   POST /detokenize      {"tokens": [ids]} -> {"content": text}
//   POST /v1/attention    {"text", "layer", "head"} -> tokens and the [T, T] weights of that head
//   GET  /v1/models, /health, /metrics (Prometheus), /  (the attention viewer page, viewer_page.h)
//
// Every request writes one line on stderr: remote address, method, path, status, response bytes, model,
// tokens, milliseconds. With an API key every route but / and /health needs `Authorization: Bearer KEY` (401).
// Request bodies above max_body_bytes get 413. Each connection has its own thread (a pool of http_threads),
// with read/write timeouts, so a slow or vanished client holds only its own thread.
#ifndef TOKVEC_SERVER_SERVER_H_
#define TOKVEC_SERVER_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tokvec::server {

struct ServerOptions {
  std::vector<std::string> models;  // model directories; each is served under its folder's name
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: any free port (Bind returns it)
  int threads = 1;                   // threads of each forward pass
  int64_t max_batch_tokens = 8192;   // tokens in one batched forward (1: no batching across requests)
  int64_t max_input_tokens = 0;      // longest input accepted (0: each model's maximum)
  std::string api_key;               // empty: no key needed
  std::string pooling = "auto";      // as `tokvec embed --pooling`
  bool normalize = false;            // as `tokvec embed --normalize`
  size_t max_body_bytes = 8 << 20;   // larger request bodies get 413
  int http_threads = 64;             // connections served at once
  int timeout_seconds = 10;          // read/write timeout per socket operation
  bool log = true;                   // one line per request on stderr
  std::string prompt_name;           // a prompt for every text input that names none (sentence-transformers)
  bool auto_truncate = false;        // cut over-long inputs unless a request says "truncate": false
  std::string index;                 // a .npy of vectors (or codes) /search looks in; empty: no /search
  std::string metric = "cosine";     // /search's default metric for a float32 index
  std::string dtype = "f32";         // the big linear layers' precision: f32 | bf16 | int8 (as `embed --dtype`)
};

class Server {
 public:
  // Loads every model (errors name the directory); two directories with the same name are an error.
  static absl::StatusOr<std::unique_ptr<Server>> Create(const ServerOptions& options);
  ~Server();

  // Binds host:port; returns the port (useful with port 0). Unavailable when the address is taken.
  absl::StatusOr<int> Bind();
  // Serves until Stop(): then stops accepting, finishes the requests already accepted and returns.
  absl::Status Run();
  // Thread-safe; may be called before Run() starts looping.
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokvec::server

#endif  // TOKVEC_SERVER_SERVER_H_
