// Fuzz target: word2vec vector files (text and binary, tokvec word2vec / init --token-embeddings read them). Any
// bytes give a status with a message, or vectors whose sizes agree and whose values are finite; a parsed file
// written back in either format parses to the same words and bit-identical values.
//
//   build-fuzz/fuzz_word2vec_vectors tests/fuzz/corpus/word2vec_vectors -max_total_time=30
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "tests/fuzz/fuzz_util.h"
#include "word2vec/vectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec::word2vec;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Vectors> vectors = ParseVectors(bytes, "fuzz.vec");
  if (!vectors.ok()) {
    FUZZ_CHECK(!vectors.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(vectors->dim >= 1 && vectors->dim <= kMaxDim);
  FUZZ_CHECK(vectors->values.size() == vectors->size() * static_cast<size_t>(vectors->dim));
  for (float v : vectors->values) FUZZ_CHECK(std::isfinite(v));
  // Words holding white space cannot be written back as one word; the round trip covers the others.
  for (const std::string& w : vectors->words) {
    if (w.empty() || w.find_first_of(" \t\n\r") != std::string::npos) return 0;
  }
  for (bool binary : {false, true}) {
    absl::StatusOr<Vectors> back = ParseVectors(FormatVectors(*vectors, binary), "again.vec",
                                                binary ? VectorFormat::kBinary : VectorFormat::kText);
    FUZZ_CHECK(back.ok());
    FUZZ_CHECK(back->words == vectors->words);
    FUZZ_CHECK(back->values.size() == vectors->values.size());
    FUZZ_CHECK(std::memcmp(back->values.data(), vectors->values.data(), vectors->values.size() * sizeof(float)) == 0);
  }
  return 0;
}
