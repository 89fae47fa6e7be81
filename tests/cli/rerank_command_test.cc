// tokvec rerank and classify through the binary: the output is the library's (pipeline/cross_encoder.h) scores
// of the PyTorch-checked test models, ordered and formatted as documented.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "pipeline/cross_encoder.h"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunTokvec;

const std::string kTestdata = std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata";
const std::vector<std::string> kDocuments = {"the lazy dog", "your cat is a lovely cat",
                                             "the quick brown fox jumps over the lazy dog.", "東 tokvec"};

std::string Joined() {
  std::string text;
  for (const std::string& d : kDocuments) text += d + "\n";
  return text;
}

TEST(RerankCommandTest, OrdersDocumentsByTheLibrarysScores) {
  const std::string query = "Your cat is a lovely cat";
  absl::StatusOr<CrossEncoder> ranker = CrossEncoder::Load(kTestdata + "/hf_bert_cross");
  ASSERT_TRUE(ranker.ok()) << ranker.status();
  const std::vector<std::string_view> queries(kDocuments.size(), query);
  const std::vector<std::string_view> docs(kDocuments.begin(), kDocuments.end());
  absl::StatusOr<std::vector<std::vector<float>>> logits = ranker->Logits(queries, docs, 1);
  ASSERT_TRUE(logits.ok()) << logits.status();
  const std::vector<RankedDocument> expected = RankDocuments(*logits, false);

  testing::RunResult r = RunTokvec({"rerank", "-m", kTestdata + "/hf_bert_cross", "-q", query, "--threads", "2"},
                                   {.stdin_data = Joined()});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  std::istringstream lines(r.out);
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    ASSERT_LT(n, expected.size());
    const size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    EXPECT_EQ(std::stoul(line.substr(0, tab1)), expected[n].index) << line;
    EXPECT_NEAR(std::stod(line.substr(tab1 + 1, tab2 - tab1 - 1)), expected[n].score, 1e-6) << line;
    EXPECT_EQ(line.substr(tab2 + 1), kDocuments[expected[n].index]);
    EXPECT_NEAR(expected[n].score, 1.0 / (1.0 + std::exp(-(*logits)[expected[n].index][0])), 1e-6);
    ++n;
  }
  EXPECT_EQ(n, kDocuments.size());

  r = RunTokvec({"rerank", "-m", kTestdata + "/hf_bert_cross", "-q", query, "-k", "2", "--raw-scores", "--format",
                 "json"},
                {.stdin_data = Joined()});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const std::vector<RankedDocument> raw = RankDocuments(*logits, true, 2);
  std::istringstream json_lines(r.out);
  n = 0;
  while (std::getline(json_lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["index"].get<size_t>(), raw[n].index);
    EXPECT_NEAR(j["score"].get<double>(), raw[n].score, 1e-6);
    EXPECT_EQ(j["text"].get<std::string>(), kDocuments[raw[n].index]);
    ++n;
  }
  EXPECT_EQ(n, 2u);
}

TEST(ClassifyCommandTest, LabelsAndProbabilitiesPerLine) {
  testing::RunResult r = RunTokvec({"classify", "-m", kTestdata + "/hf_distilbert_nli", "--pairs"},
                                   {.stdin_data = "the cat\tthe dog\nyour cat is lovely\tthe fox\n"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  absl::StatusOr<CrossEncoder> classifier = CrossEncoder::Load(kTestdata + "/hf_distilbert_nli");
  ASSERT_TRUE(classifier.ok()) << classifier.status();
  absl::StatusOr<std::vector<std::vector<float>>> logits =
      classifier->Logits({"the cat", "your cat is lovely"}, {"the dog", "the fox"}, 1);
  ASSERT_TRUE(logits.ok()) << logits.status();
  std::istringstream lines(r.out);
  std::string line;
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(std::getline(lines, line));
    const nlohmann::json j = nlohmann::json::parse(line);
    const std::vector<float> p = ScoresOf((*logits)[i], false);
    const size_t best = std::max_element(p.begin(), p.end()) - p.begin();
    EXPECT_EQ(j["label"].get<std::string>(), classifier->head().labels()[best]);
    EXPECT_NEAR(j["score"].get<double>(), p[best], 1e-6);
    double sum = 0.0;
    for (const auto& [label, value] : j["scores"].items()) sum += value.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_EQ(j["scores"].size(), 3u);
  }
  EXPECT_FALSE(std::getline(lines, line));
}

}  // namespace
}  // namespace tokvec
