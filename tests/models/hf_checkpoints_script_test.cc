// The committed checkpoints and references under tests/attention/testdata are exactly what
// scripts/gen_hf_checkpoints.py produces: when Debian's /usr/bin/python3 has torch, the script is run into a
// temporary directory and every file compared byte for byte. Skipped (with the reason) when torch is absent.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HfCheckpointsScriptTest, RegeneratedFilesEqualTheCommittedOnes) {
  if (std::system("/usr/bin/python3 -c 'import torch' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 has no torch (apt-get install python3-torch); the committed goldens are "
                    "still checked by the parity tests";
  }
  const fs::path source = TOKVEC_SOURCE_DIR;
  std::string pattern = (fs::temp_directory_path() / "tokvec_hf_XXXXXX").string();
  const fs::path out = mkdtemp(pattern.data());
  const std::string command = "/usr/bin/python3 " + (source / "scripts/gen_hf_checkpoints.py").string() + " " +
                              out.string() + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const fs::path committed = source / "tests/attention/testdata";
  int compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), out);
    EXPECT_TRUE(Slurp(entry.path()) == Slurp(committed / relative))
        << relative << " differs from the committed copy; regenerate with /usr/bin/python3 "
                       "scripts/gen_hf_checkpoints.py tests/attention/testdata";
    ++compared;
  }
  EXPECT_GE(compared, 20);
  fs::remove_all(out);
}

// The LLaMA / Qwen2 / Qwen3 checkpoints and references: scripts/gen_decoder_checkpoints.py --check regenerates them
// and compares (files byte for byte, reference numbers within 1e-5, the bound .ci/run uses).
TEST(HfCheckpointsScriptTest, DecoderCheckpointsEqualTheCommittedOnes) {
  if (std::system("/usr/bin/python3 -c 'import torch' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 has no torch (apt-get install python3-torch); the committed goldens are "
                    "still checked by the parity tests";
  }
  const fs::path source = TOKVEC_SOURCE_DIR;
  const std::string command = "/usr/bin/python3 " + (source / "scripts/gen_decoder_checkpoints.py").string() +
                              " --check --tolerance 1e-5 " + (source / "tests/attention/testdata").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace tokvec
