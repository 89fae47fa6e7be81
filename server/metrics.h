// The server's counters in Prometheus' text exposition format (GET /metrics):
// https://prometheus.io/docs/instrumenting/exposition_formats/
//
//   Metrics metrics;
//   metrics.ObserveRequest("/v1/embeddings", 200, 0.012);
//   metrics.ObserveBatch(3, 5, 140);
//   std::string text = metrics.Render({{"tiny", 2}});  // queue lengths per model
//   // tokvec_requests_total{path="/v1/embeddings",status="200"} 1
//   // tokvec_request_seconds_bucket{le="0.025"} 1 ...
//
// Thread-safe: every method may be called from any thread.
#ifndef TOKVEC_SERVER_METRICS_H_
#define TOKVEC_SERVER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tokvec::server {

class Metrics {
 public:
  // A request read and being handled (until ObserveRequest).
  void RequestStarted();
  // One answered request: its route (the unknown ones as "other"), HTTP status and wall time; `started` when
  // RequestStarted was called for it (httplib answers some errors before any handler runs).
  void ObserveRequest(const std::string& path, int status, double seconds, bool started);
  // Tokens embedded for a request (usage.prompt_tokens).
  void ObserveTokens(int64_t tokens);
  // One batched forward: how many requests, sequences and tokens it held.
  void ObserveBatch(size_t requests, size_t sequences, size_t tokens);
  // The exposition text; `queue_lengths`: (model, requests waiting) now.
  std::string Render(const std::vector<std::pair<std::string, size_t>>& queue_lengths) const;

 private:
  // Cumulative-style histogram kept as per-bucket counts; Render sums them.
  template <size_t N>
  struct Histogram {
    std::array<uint64_t, N + 1> counts{};  // the last one: above every bound (+Inf)
    double sum = 0;
    uint64_t count = 0;
  };
  static constexpr std::array<double, 11> kSecondsBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                            0.5,   1,    2.5,   5,    10};
  static constexpr std::array<double, 9> kBatchBounds = {1, 2, 4, 8, 16, 32, 64, 128, 256};

  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;  // (path, status) -> count
  Histogram<kSecondsBounds.size()> seconds_;
  Histogram<kBatchBounds.size()> batch_requests_;
  Histogram<kBatchBounds.size()> batch_sequences_;
  int64_t in_flight_ = 0;
  uint64_t tokens_ = 0;
  uint64_t batch_tokens_ = 0;
};

}  // namespace tokvec::server

#endif  // TOKVEC_SERVER_METRICS_H_
