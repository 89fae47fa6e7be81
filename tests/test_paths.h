// Where the tests find the project, ../shared and the tokvec binary. The macros TOKVEC_SOURCE_DIR,
// TOKVEC_SHARED_DIR and TOKVEC_BINARY call these functions (tests/CMakeLists.txt force-includes this header; CMake
// drops function-style -D definitions, so they are defined here), and
// their definitions are generated into the build folder. Keeping the absolute paths out of every test's compile
// command is what lets ccache reuse the test objects from another clone of the project.
//
//   const std::string corpus = std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt";
#ifndef TOKVEC_TESTS_TEST_PATHS_H_
#define TOKVEC_TESTS_TEST_PATHS_H_

namespace tokvec_test_paths {

const char* SourceDir();   // the project's root folder
const char* SharedDir();   // ../shared (or -DTOKVEC_SHARED_DIR=...)
const char* BinaryPath();  // the tokvec binary built beside the tests

}  // namespace tokvec_test_paths

#define TOKVEC_SOURCE_DIR tokvec_test_paths::SourceDir()
#define TOKVEC_SHARED_DIR tokvec_test_paths::SharedDir()
#define TOKVEC_BINARY tokvec_test_paths::BinaryPath()

#endif  // TOKVEC_TESTS_TEST_PATHS_H_
