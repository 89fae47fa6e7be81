// `tokvec encode --pairs` and `tokvec decode --skip-special` against Hugging Face: the rows of
// tests/data/pairs/golden.json (scripts/gen_pairs_files.mjs, tokenizers 0.23.2 encode(a, b) and
// decode(ids, skip_special_tokens=true)), all in one input of "a<TAB>b" lines per file; also --threads 2 gives
// the same lines.
#include <map>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using testing::RunTokvec;

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name; }

nlohmann::json Golden() {
  absl::StatusOr<std::string> text = ReadFile(DataPath("pairs/golden.json"));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json();
}

TEST(EncodePairsTest, JsonLinesMatchHuggingFace) {
  std::map<std::string, std::vector<nlohmann::json>> by_file;
  const nlohmann::json golden = Golden();
  for (const nlohmann::json& row : golden["cases"]) {
    const std::string a = row["a"].get<std::string>(), b = row["b"].get<std::string>();
    if ((a + b).find_first_of("\t\n\r") != std::string::npos) continue;  // not one TSV line
    by_file[row["file"].get<std::string>()].push_back(row);
  }
  ASSERT_GE(by_file.size(), 8u);
  size_t checked = 0;
  for (const auto& [file, rows] : by_file) {
    std::string input;
    for (const nlohmann::json& row : rows) {
      input += row["a"].get<std::string>() + "\t" + row["b"].get<std::string>() + "\n";
    }
    for (const bool add : {false, true}) {
      std::vector<std::string> args = {"encode",          "-m",       DataPath(file), "--pairs",
                                       "--allow-special", "--format", "json"};
      if (add) args.push_back("--add-special-tokens");
      const testing::RunResult r = RunTokvec(args, {.stdin_data = input});
      ASSERT_EQ(r.exit_code, 0) << r.Describe();
      std::vector<std::string> lines;
      for (size_t at = 0; at < r.out.size();) {
        const size_t end = r.out.find('\n', at);
        lines.push_back(r.out.substr(at, end - at));
        at = end + 1;
      }
      ASSERT_EQ(lines.size(), rows.size()) << file;
      for (size_t i = 0; i < rows.size(); ++i) {
        const nlohmann::json& want = rows[i][add ? "with_specials" : "plain"];
        const nlohmann::json got = nlohmann::json::parse(lines[i]);
        const std::string where = file + " " + lines[i];
        EXPECT_EQ(got["ids"], want["ids"]) << where;
        EXPECT_EQ(got["type_ids"], want["type_ids"]) << where;
        // Offsets into the line: B's count past "a<TAB>".
        const size_t shift = rows[i]["a"].get<std::string>().size() + 1;
        for (size_t k = 0; k < want["offsets"].size(); ++k) {
          const size_t add_b = want["sequence_ids"][k] == 1 ? shift : 0;
          EXPECT_EQ(got["offsets"][k][0].get<size_t>(), want["offsets"][k][0].get<size_t>() + add_b) << where;
          EXPECT_EQ(got["offsets"][k][1].get<size_t>(), want["offsets"][k][1].get<size_t>() + add_b) << where;
        }
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 80u);
}

TEST(EncodePairsTest, IdsFormatThreadsAndDecodeSkipSpecial) {
  const std::string model = DataPath("wordpiece/uncased.json");
  std::string input;
  std::vector<nlohmann::json> rows;
  const nlohmann::json golden = Golden();
  for (const nlohmann::json& row : golden["cases"]) {
    if (row["file"] != "wordpiece/uncased.json") continue;
    const std::string both = row["a"].get<std::string>() + row["b"].get<std::string>();
    if (both.find_first_of("\t\n\r") != std::string::npos) continue;
    rows.push_back(row);
    input += row["a"].get<std::string>() + "\t" + row["b"].get<std::string>() + "\r\n";  // CRLF line ends too
  }
  ASSERT_FALSE(rows.empty());
  const std::vector<std::string> args = {"encode", "-m", model, "--pairs", "--allow-special", "--add-special-tokens"};
  const testing::RunResult one = RunTokvec(args, {.stdin_data = input});
  ASSERT_EQ(one.exit_code, 0) << one.Describe();
  // Over 256 KB, so that two threads encode chunks of it: the same lines as one thread.
  std::string big;
  for (int i = 0; i < 2000; ++i) big += input;
  std::vector<std::string> threaded = args;
  threaded.insert(threaded.end(), {"--threads", "2"});
  const testing::RunResult big_one = RunTokvec(args, {.stdin_data = big});
  const testing::RunResult big_two = RunTokvec(threaded, {.stdin_data = big});
  ASSERT_EQ(big_two.exit_code, 0) << big_two.Describe();
  EXPECT_EQ(big_two.out, big_one.out);
  EXPECT_EQ(big_one.out.substr(0, one.out.size()), one.out);
  size_t at = 0;
  for (const nlohmann::json& row : rows) {
    const size_t end = one.out.find('\n', at);
    ASSERT_NE(end, std::string::npos);
    const std::string line = one.out.substr(at, end - at);
    at = end + 1;
    std::string want;
    for (const nlohmann::json& id : row["with_specials"]["ids"]) want += (want.empty() ? "" : " ") + id.dump();
    EXPECT_EQ(line, want);
    const testing::RunResult decoded = RunTokvec({"decode", "-m", model, "--skip-special"}, {.stdin_data = line});
    ASSERT_EQ(decoded.exit_code, 0) << decoded.Describe();
    EXPECT_EQ(decoded.out, row["decoded_skip_special"].get<std::string>()) << line;
  }
}

}  // namespace
}  // namespace tokvec
