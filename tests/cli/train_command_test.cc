// `tokvec train` through the real binary: the goldens of the foundation issue, determinism across runs and
// thread counts, the error paths, and the shared corpora.
#include <filesystem>
#include <sstream>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/model_cli_testutil.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;
using testing::ReadWhole;
using testing::RunShell;
using testing::ScratchDir;
using testing::ShellResult;
using testing::Tokvec;
using testing::WriteWhole;

std::string Repeat(const std::string& word, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += word + " ";
  return out;
}

TEST(TrainCommandTest, SeedExampleGolden) {
  ScratchDir dir;
  WriteWhole(dir / "corpus.txt", "low lower newest wider\n");
  ShellResult r = RunShell(fmt::format("{} train --type word --merges 4 -o {} {}", Tokvec(), dir / "seed.tokvec",
                                       dir / "corpus.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} inspect {} --merges", Tokvec(), dir / "seed.tokvec"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "e r\ner </w>\nl o\nlo w\n");
  r = RunShell(fmt::format("{} encode -m {} --tokens {}", Tokvec(), dir / "seed.tokvec", dir / "corpus.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "low </w> low er</w> n e w e s t </w> w i d er</w>\n");
}

// Sennrich et al. (2016), https://arxiv.org/abs/1508.07909: low x5, lower x2, newest x6, widest x3, from stdin.
TEST(TrainCommandTest, SennrichDictionaryGolden) {
  ScratchDir dir;
  const std::string corpus = Repeat("low", 5) + "\n" + Repeat("lower", 2) + Repeat("newest", 6) + "\n" +
                             Repeat("widest", 3);
  WriteWhole(dir / "corpus.txt", corpus);
  ShellResult r = RunShell(fmt::format("{} train --merges 10 -o {} < {} && {} inspect --merges {}", Tokvec(),
                                       dir / "m.tokvec", dir / "corpus.txt", Tokvec(), dir / "m.tokvec"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "e s\nes t\nest </w>\nl o\nlo w\ne w\new est</w>\nn ewest</w>\nlow </w>\nd est</w>\n");
}

// Wikipedia, "Byte pair encoding": aaabdaaabac -> ZabdZabac (Z=aa) -> ZYdZYac (Y=ab) -> XdXac (X=ZY).
TEST(TrainCommandTest, WikipediaByteModelGolden) {
  ScratchDir dir;
  WriteWhole(dir / "corpus.txt", "aaabdaaabac");
  ShellResult r = RunShell(fmt::format("({} train --type byte --pattern gpt2 --merges 3 -o {} {} && {} inspect {} "
                                       "--merges && {} encode -m {} --tokens {})",
                                       Tokvec(), dir / "b.tokvec", dir / "corpus.txt", Tokvec(), dir / "b.tokvec",
                                       Tokvec(), dir / "b.tokvec", dir / "corpus.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a a\na b\naa ab\naaab d aaab a c\n");
}

TEST(TrainCommandTest, SameModelBytesAcrossRunsAndThreads) {
  ScratchDir dir;
  std::string corpus;
  for (int i = 0; i < 4000; ++i) {
    corpus += fmt::format("the cat {} sat on mat {} naïve café 日本語 {}\n", i % 17, i % 101, i % 7 == 0 ? "\r" : "");
  }
  WriteWhole(dir / "corpus.txt", corpus);
  for (const std::string type : {"word", "byte"}) {
    std::string first;
    for (int threads : {1, 2, 8, 2}) {
      const std::string model = dir / fmt::format("{}{}.tokvec", type, threads);
      // `--special TOK` takes one token: the files after it stay files.
      ShellResult r = RunShell(fmt::format("{} train --type {} --vocab-size 300 --threads {} -o {} --special '<s>' "
                                           "{} {}",
                                           Tokvec(), type, threads, model, dir / "corpus.txt", dir / "corpus.txt"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const std::string bytes = ReadWhole(model);
      if (first.empty()) first = bytes;
      EXPECT_EQ(bytes, first) << type << " with " << threads << " threads";
    }
    ASSERT_THAT(first, HasSubstr("special 0 <s>\n"));
  }
}

TEST(TrainCommandTest, EarlyStopNoteOnStderr) {
  ScratchDir dir;
  WriteWhole(dir / "corpus.txt", "ab ab\n");
  ShellResult r = RunShell(fmt::format("{} train --merges 50 -o {} {}", Tokvec(), dir / "m.tokvec", dir / "corpus.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("note: stopped after 2 merges: no pair of symbols is left to merge"));
}

// Training counts pieces as encode cuts them (the whole file), so on code GPT-2's pattern learns line end plus
// indentation ("\n" + spaces, spelled `ĊĠĠĠ`): "\n    return" encodes as `ĊĠĠĠ Ġreturn`. With --split-lines
// each line is counted on its own, as Hugging Face's trainer does, and no token joins a line end to a space.
TEST(TrainCommandTest, LearnsNewlinePlusIndentOnCode) {
  ScratchDir dir;
  std::string code;
  for (int i = 0; i < 80; ++i) {
    code += fmt::format("def step_{}(value, other):\n    if value > {}:\n        return other * value\n", i, i);
    code += "    for item in range(value):\n        other -= item\n    return other\n\n";
    code += fmt::format("int f{}(int x) {{\n    if (x < {}) {{\n        return x + 1;\n    }}\n    return 0;\n}}\n", i, i);
  }
  WriteWhole(dir / "code.txt", code);
  WriteWhole(dir / "probe.txt", "x\n    return\n        return");
  for (const bool split_lines : {false, true}) {
    const std::string model = dir / (split_lines ? "lines.tokvec" : "whole.tokvec");
    ShellResult r = RunShell(fmt::format("{} train --type byte --pattern gpt2 --vocab-size 400 {} -o {} {}", Tokvec(),
                                         split_lines ? "--split-lines" : "", model, dir / "code.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = RunShell(fmt::format("{} encode -m {} --format tokens {}", Tokvec(), model, dir / "probe.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r.out.pop_back();  // the output's line end
    if (split_lines) {
      EXPECT_EQ(r.out, "x Ċ ĠĠĠ Ġreturn Ċ ĠĠĠĠĠĠĠ Ġreturn");
    } else {
      EXPECT_EQ(r.out, "x ĊĠĠĠ Ġreturn ĊĠĠĠĠĠĠĠ Ġreturn");
    }
    r = RunShell(fmt::format("{} inspect --merges {}", Tokvec(), model));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // A merge of a line end with spaces: `Ċ ĠĠ`, `ĊĠĠ Ġ`, ...
    bool joins_line_end = false;
    std::istringstream merges(r.out);
    for (std::string line; std::getline(merges, line);) {
      joins_line_end |= line.starts_with("Ċ") && line.find(" Ġ") != std::string::npos;
    }
    EXPECT_EQ(joins_line_end, !split_lines) << r.out;
  }
}

// The normalizer chosen at training is stored in the model and applied at encode; offsets stay in the input.
TEST(TrainCommandTest, NormalizationIsStoredAndApplied) {
  ScratchDir dir;
  WriteWhole(dir / "corpus.txt", "LOW Low low LOWER\n");
  ShellResult r = RunShell(fmt::format("{} train --normalize nfkc+lowercase --merges 10 -o {} {}", Tokvec(),
                                       dir / "n.tokvec", dir / "corpus.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadWhole(dir / "n.tokvec"), HasSubstr("\nnormalizer nfkc+lowercase\n"));
  r = RunShell(fmt::format("echo 'ＬＯＷ lower' | {} encode -m {} --format json", Tokvec(), dir / "n.tokvec"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Fullwidth ＬＯＷ (9 bytes) is NFKC "LOW", lowercased "low": one token covering all 9 input bytes.
  EXPECT_THAT(r.out, HasSubstr("\"tokens\": [\"low</w>\", \"lower</w>\"], \"offsets\": [[0, 9], [10, 15]]"));
}

struct ErrorCase {
  std::string args;  // `{dir}` is the scratch folder.
  int exit_code;
  std::string message;
};

TEST(TrainCommandTest, ErrorsNameTheProblem) {
  ScratchDir dir;
  WriteWhole(dir / "corpus.txt", "low lower\n");
  WriteWhole(dir / "latin1.txt", "ok\ncaf\xE9\n");
  const std::vector<ErrorCase> cases = {
      {"--merges 3 --vocab-size 9 -o {dir}/m {dir}/corpus.txt", 2, "--merges excludes --vocab-size"},
      {"-o {dir}/m {dir}/corpus.txt", 2, "give exactly one of --merges N and --vocab-size N"},
      {"--merges 3 {dir}/corpus.txt", 2, "--output is required"},
      {"--type words --merges 3 -o {dir}/m {dir}/corpus.txt", 2, "--type"},
      {"--merges x -o {dir}/m {dir}/corpus.txt", 2, "--merges"},
      {"--pattern gpt2 --merges 3 -o {dir}/m {dir}/corpus.txt", 2, "--pattern applies to byte models only"},
      {"--vocab-size 5 -o {dir}/m {dir}/corpus.txt", 1,
       "vocabulary size 5 is smaller than the 7 ids this corpus needs before any merge (0 special tokens, <unk>, "
       "</w>, 5 alphabet symbols); use a vocabulary size of at least 7"},
      {"--type byte --vocab-size 100 -o {dir}/m {dir}/corpus.txt", 1, "use a vocabulary size of at least 256"},
      {"--merges 3 -o {dir}/m {dir}/latin1.txt", 1, "latin1.txt: invalid UTF-8 at byte offset 6 (byte 0xE9)"},
      {"--merges 3 -o {dir}/m {dir}/missing.txt", 1, "cannot open '{dir}/missing.txt'"},
      {"--merges 3 -o {dir}/no/such/dir/m {dir}/corpus.txt", 1, "{dir}/no/such/dir/m"},
      {"--merges 3 --special a --special a -o {dir}/m {dir}/corpus.txt", 1, "special token 'a' is given twice"},
      {"--type byte --pattern '(' --merges 3 -o {dir}/m {dir}/corpus.txt", 1, "("},
      {"--normalize nfkq --merges 3 -o {dir}/m {dir}/corpus.txt", 1, "nfkq"},
  };
  auto expand = [&](std::string text) {
    for (size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, dir.path());
    return text;
  };
  for (const ErrorCase& c : cases) {
    ShellResult r = RunShell(Tokvec() + " train " + expand(c.args));
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(expand(c.message))) << c.args;
    EXPECT_THAT(r.err, HasSubstr("error: ")) << c.args;
    EXPECT_FALSE(std::filesystem::exists(dir / "m")) << c.args << " left a model file behind";
  }
}

// The shared corpora (../shared/corpora): a word model on an English book and a byte model on everything
// Japanese, checked by encode -> decode round trips.
TEST(TrainCommandTest, SharedCorpora) {
  const std::string corpora = std::string(TOKVEC_SHARED_DIR) + "/corpora";
  if (!std::filesystem::exists(corpora + "/botchan.txt")) {
    GTEST_SKIP() << "shared corpora not found at " << corpora << " (set TOKVEC_SHARED_DIR)";
  }
  ScratchDir dir;
  ShellResult r = RunShell(fmt::format("{} train --type byte --vocab-size 2000 --threads 2 -o {} {}/botchan.txt "
                                       "{}/wagahaiwa_nekodearu.txt && {} encode -m {} {}/wagahaiwa_nekodearu.txt | "
                                       "{} decode -m {} | cmp - {}/wagahaiwa_nekodearu.txt",
                                       Tokvec(), dir / "b.tokvec", corpora, corpora, Tokvec(), dir / "b.tokvec",
                                       corpora, Tokvec(), dir / "b.tokvec", corpora));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunShell(fmt::format("{} train --type word --merges 3000 -o {} {}/tinyshakespeare.txt && {} encode -m {} "
                           "--lines {}/tinyshakespeare.txt | head -3",
                           Tokvec(), dir / "w.tokvec", corpora, Tokvec(), dir / "w.tokvec", corpora));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "First Citizen:" is frequent in the play: each word is one token after 3000 merges.
  r = RunShell(fmt::format("echo 'First Citizen:' | {} encode -m {} --tokens", Tokvec(), dir / "w.tokvec"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "First</w> Citizen:</w>\n");
}

}  // namespace
}  // namespace tokvec
