#include "server/metrics.h"

#include <iterator>

#include "fmt/format.h"

namespace tokvec::server {
namespace {

template <typename H, size_t N>
void Add(H& histogram, const std::array<double, N>& bounds, double value) {
  size_t b = 0;
  while (b < N && value > bounds[b]) ++b;
  ++histogram.counts[b];
  histogram.sum += value;
  ++histogram.count;
}

template <typename H, size_t N>
void Write(std::string* out, const char* name, const char* help, const H& histogram,
           const std::array<double, N>& bounds) {
  auto it = std::back_inserter(*out);
  fmt::format_to(it, "# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
  uint64_t cumulative = 0;
  for (size_t b = 0; b < N; ++b) {
    cumulative += histogram.counts[b];
    fmt::format_to(it, "{}_bucket{{le=\"{}\"}} {}\n", name, bounds[b], cumulative);
  }
  fmt::format_to(it, "{}_bucket{{le=\"+Inf\"}} {}\n{}_sum {}\n{}_count {}\n", name, histogram.count, name,
                 histogram.sum, name, histogram.count);
}

// A label value as the exposition format wants it: backslash, double quote and newline escaped.
std::string LabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

}  // namespace

void Metrics::RequestStarted() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++in_flight_;
}

void Metrics::ObserveRequest(const std::string& path, int status, double seconds, bool started) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (started) --in_flight_;
  ++requests_[{path, status}];
  Add(seconds_, kSecondsBounds, seconds);
}

void Metrics::ObserveTokens(int64_t tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  tokens_ += static_cast<uint64_t>(tokens);
}

void Metrics::ObserveBatch(size_t requests, size_t sequences, size_t tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  Add(batch_requests_, kBatchBounds, static_cast<double>(requests));
  Add(batch_sequences_, kBatchBounds, static_cast<double>(sequences));
  batch_tokens_ += tokens;
}

std::string Metrics::Render(const std::vector<std::pair<std::string, size_t>>& queue_lengths) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "# HELP tokvec_requests_total HTTP requests answered, by route and status.\n"
                     "# TYPE tokvec_requests_total counter\n");
  for (const auto& [key, count] : requests_) {
    fmt::format_to(it, "tokvec_requests_total{{path=\"{}\",status=\"{}\"}} {}\n", LabelValue(key.first), key.second,
                   count);
  }
  fmt::format_to(it, "# HELP tokvec_requests_in_flight Requests read and not yet answered (this one included).\n"
                     "# TYPE tokvec_requests_in_flight gauge\ntokvec_requests_in_flight {}\n", in_flight_);
  fmt::format_to(it, "# HELP tokvec_prompt_tokens_total Tokens embedded (usage.prompt_tokens summed).\n"
                     "# TYPE tokvec_prompt_tokens_total counter\ntokvec_prompt_tokens_total {}\n", tokens_);
  fmt::format_to(it, "# HELP tokvec_batch_tokens_total Tokens run through batched forward passes.\n"
                     "# TYPE tokvec_batch_tokens_total counter\ntokvec_batch_tokens_total {}\n", batch_tokens_);
  Write(&out, "tokvec_request_seconds", "Wall time from request parsed to response ready.", seconds_,
        kSecondsBounds);
  Write(&out, "tokvec_batch_requests", "Requests per batched forward pass.", batch_requests_, kBatchBounds);
  Write(&out, "tokvec_batch_sequences", "Inputs (sequences) per batched forward pass.", batch_sequences_,
        kBatchBounds);
  fmt::format_to(it, "# HELP tokvec_queue_length Embeddings requests waiting for their model's batcher.\n"
                     "# TYPE tokvec_queue_length gauge\n");
  for (const auto& [model, length] : queue_lengths) {
    fmt::format_to(it, "tokvec_queue_length{{model=\"{}\"}} {}\n", LabelValue(model), length);
  }
  return out;
}

}  // namespace tokvec::server
