// `tokvec encode --format npz`: every line padded into [rows, length] int64 arrays. The rows of each batch case of
// tests/data/lengths/golden.json (Hugging Face's encode_batch, made by scripts/gen_lengths_files.mjs) are compared
// array by array; then the layout of overflowing windows, and the usage errors (no file is left behind).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::RunTokvec;

std::string DataPath(const std::string& name) { return std::string(TOKVEC_SOURCE_DIR) + "/tests/data/" + name; }

struct Array {
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
};

uint32_t Get32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}

uint32_t Get16(const std::string& s, size_t at) {
  return static_cast<unsigned char>(s[at]) | (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 8);
}

// The int64 members of a stored .npz, read independently of the writer: ZIP local headers, then .npy headers.
std::map<std::string, Array> ReadNpz(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string zip = buffer.str();
  std::map<std::string, Array> arrays;
  for (size_t at = 0; at + 30 <= zip.size() && Get32(zip, at) == 0x04034b50;) {
    EXPECT_EQ(Get16(zip, at + 8), 0u) << "stored";
    const size_t size = Get32(zip, at + 18), name_size = Get16(zip, at + 26), extra = Get16(zip, at + 28);
    std::string name = zip.substr(at + 30, name_size);
    const std::string npy = zip.substr(at + 30 + name_size + extra, size);
    at += 30 + name_size + extra + size;
    EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const size_t header_size = Get16(npy, 8);
    EXPECT_EQ((10 + header_size) % 64, 0u);
    const std::string header = npy.substr(10, header_size);
    EXPECT_THAT(header, HasSubstr("'descr': '<i8', 'fortran_order': False"));
    Array array;
    std::string dims = header.substr(header.find("'shape': (") + 10);
    dims = dims.substr(0, dims.find(')'));
    std::stringstream ds(dims);
    for (std::string d; std::getline(ds, d, ',');) {
      if (d.find_first_of("0123456789") != std::string::npos) array.shape.push_back(std::stoll(d));
    }
    array.values.resize((npy.size() - 10 - header_size) / 8);
    std::memcpy(array.values.data(), npy.data() + 10 + header_size, array.values.size() * 8);
    arrays[name.substr(0, name.size() - 4)] = array;
  }
  return arrays;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tokvec_npz_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(EncodeNpzTest, RowsAreHuggingFacesPaddedBatches) {
  std::ifstream golden_file(DataPath("lengths/golden.json"));
  const nlohmann::json golden = nlohmann::json::parse(golden_file);
  int compared = 0;
  for (const nlohmann::json& c : golden["cases"]) {
    if (!c.contains("batch") || c.contains("error")) continue;
    std::string input;
    bool pairs = false, usable = true;
    for (const nlohmann::json& item : c["batch"]) {
      const std::string line = item.is_array() ? item[0].get<std::string>() + "\t" + item[1].get<std::string>()
                                               : item.get<std::string>();
      pairs = pairs || item.is_array();
      if (line.find('\n') != std::string::npos || (!item.is_array() && line.find('\t') != std::string::npos)) {
        usable = false;
      }
      input += line + "\n";
    }
    if (!usable) continue;
    const std::string out = TempPath("golden.npz");
    // --allow-special: Hugging Face matches every added token in the text, special or not.
    std::vector<std::string> args = {"encode", "-m", DataPath(c["file"].get<std::string>()), "--lines",
                                     "--allow-special", "--format", "npz", "--arrays",
                                     "offsets,word_ids,special_tokens_mask", "-o", out};
    if (c["add"].get<bool>()) args.push_back("--add-special-tokens");
    if (pairs) args.push_back("--pairs");
    const testing::RunResult r = RunTokvec(args, {.stdin_data = input});
    ASSERT_EQ(r.exit_code, 0) << c["file"] << r.Describe();
    std::map<std::string, Array> arrays = ReadNpz(out);
    std::filesystem::remove(out);
    const nlohmann::json& rows = c["rows"];
    ASSERT_EQ(arrays["input_ids"].shape.size(), 2u);
    const int64_t n = arrays["input_ids"].shape[0], length = arrays["input_ids"].shape[1];
    ASSERT_EQ(n, static_cast<int64_t>(rows.size())) << c["file"];
    for (int64_t i = 0; i < n; ++i) {
      const nlohmann::json& row = rows[static_cast<size_t>(i)];
      // A file without "padding" gives rows of their own lengths; npz pads them on the right.
      const int64_t own = static_cast<int64_t>(row["ids"].size());
      ASSERT_LE(own, length) << c["file"] << " row " << i;
      for (int64_t j = own; j < length; ++j) EXPECT_EQ(arrays["attention_mask"].values[i * length + j], 0);
      for (int64_t j = 0; j < own; ++j) {
        const size_t k = static_cast<size_t>(i * length + j), jj = static_cast<size_t>(j);
        EXPECT_EQ(arrays["input_ids"].values[k], row["ids"][jj].get<int64_t>()) << c["file"] << " " << i << "," << j;
        EXPECT_EQ(arrays["attention_mask"].values[k], row["attention_mask"][jj].get<int64_t>());
        EXPECT_EQ(arrays["token_type_ids"].values[k], row["type_ids"][jj].get<int64_t>());
        EXPECT_EQ(arrays["word_ids"].values[k], row["word_ids"][jj].get<int64_t>());
        EXPECT_EQ(arrays["special_tokens_mask"].values[k], row["special_tokens_mask"][jj].get<int64_t>());
        EXPECT_EQ(arrays["offsets"].values[2 * k], row["offsets"][jj][0].get<int64_t>());
        EXPECT_EQ(arrays["offsets"].values[2 * k + 1], row["offsets"][jj][1].get<int64_t>());
      }
    }
    ++compared;
  }
  EXPECT_GE(compared, 8) << "batch cases of golden.json compared";
}

TEST(EncodeNpzTest, OverflowingWindowsAreRowsAfterTheirLine) {
  const std::string out = TempPath("windows.npz");
  const testing::RunResult r = RunTokvec(
      {"encode", "-m", DataPath("wordpiece/uncased.json"), "--lines", "--format", "npz", "--max-length", "8",
       "--stride", "2", "--overflowing", "--add-special-tokens", "-o", out},
      {.stdin_data = "hello world\nthe quick brown fox jumps over the lazy dog again\nshort\n"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  std::map<std::string, Array> arrays = ReadNpz(out);
  std::filesystem::remove(out);
  const std::vector<int64_t> mapping = arrays["overflow_to_sample_mapping"].values;
  ASSERT_GE(mapping.size(), 4u);
  EXPECT_EQ(mapping.front(), 0);
  EXPECT_EQ(mapping[1], 1);
  EXPECT_EQ(mapping[2], 1) << "line 2's window follows it";
  EXPECT_EQ(mapping.back(), 2);
  EXPECT_EQ(arrays["input_ids"].shape, (std::vector<int64_t>{static_cast<int64_t>(mapping.size()), 8}));
  // The same ids as the text output's window lines, padded.
  const testing::RunResult text = RunTokvec(
      {"encode", "-m", DataPath("wordpiece/uncased.json"), "--lines", "--max-length", "8", "--stride", "2",
       "--overflowing", "--add-special-tokens"},
      {.stdin_data = "hello world\nthe quick brown fox jumps over the lazy dog again\nshort\n"});
  std::stringstream lines(text.out);
  size_t row = 0;
  for (std::string line; std::getline(lines, line); ++row) {
    std::stringstream ids(line);
    int64_t j = 0;
    for (int64_t id; ids >> id; ++j) EXPECT_EQ(arrays["input_ids"].values[row * 8 + static_cast<size_t>(j)], id);
    for (; j < 8; ++j) EXPECT_EQ(arrays["attention_mask"].values[row * 8 + static_cast<size_t>(j)], 0);
  }
  EXPECT_EQ(row, mapping.size());
}

TEST(EncodeNpzTest, UsageErrorsLeaveNoFile) {
  const std::string model = DataPath("wordpiece/uncased.json");
  const std::string out = TempPath("bad.npz");
  struct Case {
    std::vector<std::string> args;
    std::string message;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {{"--format", "npz"}, "--format npz writes one .npz of the lines of one input: it needs -o FILE.npz", 2},
      {{"--format", "npz", "--no-padding", "-o", out}, "it takes no --no-padding", 2},
      {{"--format", "npz", "--arrays", "bogus", "-o", out}, "--arrays takes offsets, word_ids", 2},
      {{"--arrays", "offsets"}, "--arrays is for --format npz", 2},
      {{"--format", "npz", "--pairs", "-o", out}, "line 2: --pairs expects text A, a tab, text B", 1},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"encode", "-m", model, "--lines"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const testing::RunResult r = RunTokvec(args, {.stdin_data = "a\tb\nno tab here\n"});
    EXPECT_EQ(r.exit_code, c.exit_code) << r.Describe();
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_FALSE(std::filesystem::exists(out)) << "no half-written file";
  }
}

}  // namespace
}  // namespace tokvec
