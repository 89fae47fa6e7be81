#include "pipeline/heatmap.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Matrix Weights() {  // [2, 2], rows sum to 1
  Matrix w(2, 2);
  w.at(0, 0) = 1.0f;
  w.at(1, 0) = 0.25f;
  w.at(1, 1) = 0.75f;
  return w;
}

TEST(HeatmapTest, TableIsAligned) {
  const std::string table = WeightsTable({"a", "Ġlonger"}, Weights().view());
  // Every line has the same number of code points.
  std::vector<size_t> widths;
  size_t width = 0;
  for (char c : table) {
    if (c == '\n') {
      widths.push_back(width);
      width = 0;
    } else if ((c & 0xC0) != 0x80) {
      ++width;
    }
  }
  ASSERT_EQ(widths.size(), 3u);
  EXPECT_EQ(widths[0], widths[1]) << table;
  EXPECT_EQ(widths[1], widths[2]) << table;
  EXPECT_THAT(table, HasSubstr("0.250"));
}

TEST(HeatmapTest, JsonHasTokensAndWeights) {
  nlohmann::json j = nlohmann::json::parse(WeightsJson({"a", "b"}, Weights().view(), 3, 1));
  EXPECT_EQ(j["layer"], 3);
  EXPECT_EQ(j["head"], 1);
  EXPECT_EQ(j["tokens"], nlohmann::json::parse(R"(["a", "b"])"));
  EXPECT_EQ(j["weights"][1][1].get<double>(), 0.75);
}

TEST(HeatmapTest, SvgAndHtmlEscapeTokens) {
  const std::vector<std::string> tokens = {"<s>", "</script>&"};
  const std::string svg = WeightsSvg(tokens, Weights().view(), "t");
  EXPECT_THAT(svg, HasSubstr("&lt;s&gt;"));
  EXPECT_THAT(svg, HasSubstr("&lt;/script&gt;&amp;"));
  EXPECT_THAT(svg, Not(HasSubstr("<s>")));
  // White for 0, dark blue for 1.
  EXPECT_THAT(svg, HasSubstr("fill=\"#f7fbff\""));
  EXPECT_THAT(svg, HasSubstr("fill=\"#08306b\""));
  const std::string html = WeightsHtml(tokens, Weights().view(), "t");
  EXPECT_EQ(html.find("</script>&"), std::string::npos) << "a token must not close the script element";
  EXPECT_THAT(html, HasSubstr("<\\/script>"));
}

}  // namespace
}  // namespace tokvec
