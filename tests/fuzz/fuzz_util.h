// Helpers shared by the libFuzzer targets in tests/fuzz/.
//
//   FUZZ_CHECK(decoded == text);  // on failure prints the condition and aborts, so libFuzzer saves the input
#ifndef TOKVEC_TESTS_FUZZ_FUZZ_UTIL_H_
#define TOKVEC_TESTS_FUZZ_FUZZ_UTIL_H_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

// Aborts with the failed condition: a fuzz finding (a crash input is written by libFuzzer).
#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

// A per-process scratch folder `<tmp>/<prefix><pid>` for targets whose loader reads files; removed at exit.
// The path is never destroyed, so the exit handler can still read it after static destructors ran.
inline const std::string& FuzzScratchDir(const char* prefix) {
  static const std::string* dir = nullptr;
  if (dir == nullptr) {
    dir = new std::string(std::filesystem::temp_directory_path() / (prefix + std::to_string(getpid())));
    std::filesystem::create_directories(*dir);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*dir, ignored);
    });
  }
  return *dir;
}

// Writes `bytes` to `path`, replacing it.
inline void FuzzWriteBytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good());
}

#endif  // TOKVEC_TESTS_FUZZ_FUZZ_UTIL_H_
