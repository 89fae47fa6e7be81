// Metrics (server/metrics.h): Prometheus' text format with cumulative buckets, sums and counts, escaped labels.
#include "server/metrics.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec::server {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, CountersHistogramsAndGauges) {
  Metrics metrics;
  metrics.RequestStarted();
  metrics.ObserveRequest("/v1/embeddings", 200, 0.003, true);
  metrics.RequestStarted();
  metrics.ObserveRequest("/v1/embeddings", 200, 0.2, true);
  metrics.ObserveRequest("other", 400, 20.0, false);  // answered by httplib before any handler
  metrics.RequestStarted();                           // one still in flight
  metrics.ObserveTokens(14);
  metrics.ObserveBatch(3, 5, 40);
  metrics.ObserveBatch(1, 1, 9);
  const std::string text = metrics.Render({{"tiny", 2}, {"we\"ird\\", 0}});
  EXPECT_THAT(text, HasSubstr("tokvec_requests_total{path=\"/v1/embeddings\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_requests_total{path=\"other\",status=\"400\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("\ntokvec_requests_in_flight 1\n"));
  EXPECT_THAT(text, HasSubstr("\ntokvec_prompt_tokens_total 14\n"));
  EXPECT_THAT(text, HasSubstr("\ntokvec_batch_tokens_total 49\n"));
  // Cumulative: 0.003 s is in every bucket from 0.005 on, 0.2 s from 0.25 on, 20 s only in +Inf.
  EXPECT_THAT(text, HasSubstr("tokvec_request_seconds_bucket{le=\"0.005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_request_seconds_bucket{le=\"0.1\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_request_seconds_bucket{le=\"0.25\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_request_seconds_bucket{le=\"10\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_request_seconds_bucket{le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_request_seconds_count 3\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_batch_requests_bucket{le=\"2\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_batch_requests_bucket{le=\"4\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_batch_requests_sum 4\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_batch_sequences_sum 6\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE tokvec_request_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_queue_length{model=\"tiny\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("tokvec_queue_length{model=\"we\\\"ird\\\\\"} 0\n"));
}

}  // namespace
}  // namespace tokvec::server
