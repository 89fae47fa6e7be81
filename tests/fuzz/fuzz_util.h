// Helpers shared by the libFuzzer targets in tests/fuzz/.
//
//   FUZZ_CHECK(decoded == text);  // on failure prints the condition and aborts, so libFuzzer saves the input
#ifndef TOKVEC_TESTS_FUZZ_FUZZ_UTIL_H_
#define TOKVEC_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstdio>
#include <cstdlib>

// Aborts with the failed condition: a fuzz finding (a crash input is written by libFuzzer).
#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

#endif  // TOKVEC_TESTS_FUZZ_FUZZ_UTIL_H_
