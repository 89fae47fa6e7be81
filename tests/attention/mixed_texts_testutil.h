// Texts of several token counts, so batches mix lengths and hold several sequences of one length (the batching
// tests of EmbedTexts and of the server's batcher).
#ifndef TOKVEC_TESTS_ATTENTION_MIXED_TEXTS_TESTUTIL_H_
#define TOKVEC_TESTS_ATTENTION_MIXED_TEXTS_TESTUTIL_H_

#include <string>
#include <vector>

namespace tokvec::testing {

inline std::vector<std::string> MixedLengthTexts() {
  const char* words[] = {"the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "far"};
  std::vector<std::string> texts;
  for (int i = 0; i < 48; ++i) {
    std::string t;
    for (int k = 0; k <= (i * 7) % 11; ++k) t += std::string(k ? " " : "") + words[(i + k * 3) % 10];
    texts.push_back(t);
  }
  return texts;
}

}  // namespace tokvec::testing

#endif  // TOKVEC_TESTS_ATTENTION_MIXED_TEXTS_TESTUTIL_H_
