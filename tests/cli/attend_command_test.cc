// `tokvec attend`: the weights grid of one layer and head equals PyTorch's, in every output form.
#include <cmath>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ModelTestdata;
using testing::RunShell;
using testing::ScratchDir;
using testing::Tokvec;

TEST(AttendCommandTest, JsonMatchesTorchAndRowsSumToOne) {
  nlohmann::json reference =
      nlohmann::json::parse(testing::ReadWhole(ModelTestdata() + "/hf_gpt2_reference.json"));
  ScratchDir scratch;
  testing::WriteWhole(scratch / "in.txt", reference["texts"][0].get<std::string>() + "\n");
  for (int layer = 0; layer < 2; ++layer) {
    for (int head = 0; head < 4; ++head) {
      testing::ShellResult r = RunShell(fmt::format("{} attend -m {}/hf_gpt2_f32 --layer {} --head {} --format json {}",
                                                    Tokvec(), ModelTestdata(), layer, head, scratch / "in.txt"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      nlohmann::json out = nlohmann::json::parse(r.out);
      const nlohmann::json& expected = reference["f32"]["attentions"][layer][head];
      ASSERT_EQ(out["weights"].size(), expected.size());
      EXPECT_EQ(out["tokens"].size(), expected.size());
      for (size_t q = 0; q < expected.size(); ++q) {
        double sum = 0;
        for (size_t k = 0; k < expected[q].size(); ++k) {
          const double w = out["weights"][q][k].get<double>();
          EXPECT_NEAR(w, expected[q][k].get<double>(), 1e-5) << layer << " " << head << " " << q << " " << k;
          if (k > q) EXPECT_EQ(w, 0.0) << "causal: no attention to later tokens";
          sum += w;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
  }
}

TEST(AttendCommandTest, TableSvgAndHtml) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "in.txt", "Your cat is a lovely cat\n");
  testing::ShellResult r =
      RunShell(fmt::format("{} attend -m {}/hf_roberta_f32 --layer 1 --head 3 --svg {} --html {} {}", Tokvec(),
                           ModelTestdata(), scratch / "a.svg", scratch / "a.html", scratch / "in.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("layer 1, head 3"));
  EXPECT_THAT(r.out, HasSubstr("␣lovely"));  // readable tokens for people; --format json keeps GPT-2's Ġlovely
  EXPECT_THAT(r.out, Not(HasSubstr("Ġ")));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2 + 8) << r.out;  // title, header, 8 rows (<s> ... </s>)
  const std::string svg = testing::ReadWhole(scratch / "a.svg");
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("&lt;s&gt;"));  // the <s> label, escaped
  EXPECT_THAT(svg, HasSubstr("␣lovely"));
  EXPECT_EQ(static_cast<size_t>(std::count(svg.begin(), svg.end(), '\n')) >= 64u, true);
  size_t cells = 0;
  for (size_t at = svg.find("class=\"cell\""); at != std::string::npos; at = svg.find("class=\"cell\"", at + 1)) ++cells;
  EXPECT_EQ(cells, 64u);
  const std::string html = testing::ReadWhole(scratch / "a.html");
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("mouseover"));
  EXPECT_THAT(html, HasSubstr("␣lovely"));
  EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "self-contained";
}

TEST(AttendCommandTest, BadLayerOrHead) {
  ScratchDir scratch;
  testing::WriteWhole(scratch / "in.txt", "Your cat");
  testing::ShellResult r = RunShell(
      fmt::format("{} attend -m {}/hf_gpt2_f32 --head 4 {}", Tokvec(), ModelTestdata(), scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--head 4 does not exist; the model has heads 0..3"));
  r = RunShell(fmt::format("{} attend -m {}/missing {}", Tokvec(), ModelTestdata(), scratch / "in.txt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("missing"));
}

}  // namespace
}  // namespace tokvec
