// tokvec serve: model directories behind an HTTP API speaking OpenAI's embeddings protocol (server/server.h).
//
//   tokvec serve -m all-distilroberta-v1 --port 8080 --threads 2
//   curl -s localhost:8080/v1/embeddings -H 'Content-Type: application/json' -d '{"input": ["a cat", "a dog"]}'
//
// SIGTERM or SIGINT (Ctrl-C) stops accepting connections, finishes the requests already accepted and exits 0.
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/status_macros.h"
#include "cli/command.h"
#include "fmt/format.h"
#include "server/server.h"

namespace tokvec::cli {
namespace {

// SIGTERM and SIGINT write their number into a pipe (all a signal handler may safely do); a thread reads it
// and asks the server to stop. A handler rather than sigwait: OpenBLAS starts threads before main, and a
// process-directed signal may land on any thread that does not block it.
int stop_pipe[2] = {-1, -1};

extern "C" void OnStopSignal(int signal) {
  const char byte = static_cast<char>(signal);
  [[maybe_unused]] ssize_t n = write(stop_pipe[1], &byte, 1);
}

absl::Status RunServe(const server::ServerOptions& options) {
  if (options.threads < 1) {
    return absl::InvalidArgumentError(
        fmt::format("{}--threads must be at least 1, not {}", kUsagePrefix, options.threads));
  }
  if (options.max_batch_tokens < 1) {
    return absl::InvalidArgumentError(
        fmt::format("{}--max-batch-tokens must be at least 1 (1: no batching across requests), not {}", kUsagePrefix,
                    options.max_batch_tokens));
  }
  if (options.max_input_tokens < 0) {
    return absl::InvalidArgumentError(fmt::format("{}--max-input-tokens must be 0 (the model's maximum) or more, "
                                                  "not {}",
                                                  kUsagePrefix, options.max_input_tokens));
  }
  if (options.max_body_bytes < 1) {
    return absl::InvalidArgumentError(fmt::format("{}--max-body-bytes must be at least 1", kUsagePrefix));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<server::Server> server, server::Server::Create(options));
  TOKVEC_ASSIGN_OR_RETURN(int port, server->Bind());
  if (pipe(stop_pipe) != 0) return absl::InternalError("cannot create a pipe for the stop signals");
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  std::thread stopper([&] {
    char byte = 0;
    while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    if (byte == SIGTERM || byte == SIGINT) {
      std::fprintf(stderr, "tokvec serve: %s, finishing the requests in flight\n",
                   byte == SIGTERM ? "SIGTERM" : "SIGINT");
    }
    server->Stop();
  });
  std::fprintf(stderr, "tokvec serve: listening on http://%s:%d/ (%zu model%s)\n", options.host.c_str(), port,
               options.models.size(), options.models.size() == 1 ? "" : "s");
  absl::Status status = server->Run();
  const char done = 0;  // wakes the stopper when the server ended on its own
  [[maybe_unused]] ssize_t n = write(stop_pipe[1], &done, 1);
  stopper.join();
  server.reset();  // the batchers finish their queues
  if (status.ok()) std::fprintf(stderr, "tokvec serve: stopped\n");
  return status;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<server::ServerOptions>();
  CLI::App* sub = app.add_subcommand("serve", "Serve models over HTTP: OpenAI embeddings API, tokenize, attention");
  sub->add_option("-m,--model", options->models,
                  "Model directory (repeat for several; each is served under its folder's name)")
      ->required();
  sub->add_option("--host", options->host, "Address to listen on")->capture_default_str();
  sub->add_option("--port", options->port, "Port (0: any free port, printed on stderr)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  sub->add_option("--threads", options->threads, "Threads of each forward pass")->capture_default_str();
  sub->add_option("--max-batch-tokens", options->max_batch_tokens,
                  "Most tokens in one batched forward across requests (1: no batching across requests)")
      ->capture_default_str();
  sub->add_option("--max-input-tokens", options->max_input_tokens,
                  "Longest input accepted, in tokens (default 0: the model's maximum)");
  sub->add_option("--api-key", options->api_key, "Require 'Authorization: Bearer KEY' (not on / and /health)");
  sub->add_option("--pooling", options->pooling,
                  "none | mean | cls | last | max | auto (the directory's sentence-transformers pooling)")
      ->check(CLI::IsMember({"auto", "none", "mean", "cls", "last", "max"}))
      ->capture_default_str();
  sub->add_flag("--normalize", options->normalize, "Scale every vector to unit length");
  sub->add_option("--max-body-bytes", options->max_body_bytes, "Larger request bodies get 413")->capture_default_str();
  sub->add_flag("--quiet", [options](int64_t) { options->log = false; }, "No log line per request");
  sub->add_option("--prompt-name", options->prompt_name,
                  "A prompt of the model's config_sentence_transformers.json for every text input whose request "
                  "names none (the model's default_prompt_name applies without it)");
  sub->add_flag("--auto-truncate", options->auto_truncate,
                "Cut over-long inputs (keeping special tokens) unless a request sends \"truncate\": false; without "
                "it they get 400 unless the request sends \"truncate\": true");
  sub->add_option("--index", options->index,
                  "A .npy of vectors (float32 [N, D], or codes from `embed --precision`) that POST /search looks in; "
                  "memory-mapped");
  sub->add_option("--metric", options->metric, "POST /search's default metric for a float32 index")
      ->check(CLI::IsMember({"cosine", "dot"}))
      ->capture_default_str();
  sub->add_option("--dtype", options->dtype,
                  "Precision of the big linear layers: f32 | bf16 (AVX-512 BF16) | int8 (AVX-512 VNNI); an "
                  "unsupported CPU is an error")
      ->check(CLI::IsMember({"f32", "bf16", "int8"}))
      ->capture_default_str();
  sub->callback([options, action] { *action = [options] { return RunServe(*options); }; });
}

}  // namespace tokvec::cli
