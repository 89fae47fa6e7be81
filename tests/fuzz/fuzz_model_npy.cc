// Fuzz target: the .npy matrix reader `embed --gather` uses on part files (embeddings/npy.h
// ParseNpyFloat32Matrix). Any bytes give a status or a shape whose floats fit the input exactly; what NpyFloat32
// writes always parses back to its shape.
//
//   build-fuzz/fuzz_model_npy tests/fuzz/corpus/model_npy -max_total_time=30
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "embeddings/npy.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<NpyMatrixView> view = ParseNpyFloat32Matrix(bytes);
  if (!view.ok()) {
    FUZZ_CHECK(!view.status().message().empty());
  } else {
    FUZZ_CHECK(view->data_offset <= size);
    FUZZ_CHECK(static_cast<uint64_t>(size - view->data_offset) ==
               static_cast<uint64_t>(view->rows) * static_cast<uint64_t>(view->cols) * sizeof(float));
  }
  // Round trip of a small matrix shaped by the input.
  const int64_t rows = size % 5, cols = size % 7;
  const std::vector<float> values(static_cast<size_t>(rows * cols), 1.5f);
  absl::StatusOr<NpyMatrixView> back = ParseNpyFloat32Matrix(NpyFloat32(values.data(), {rows, cols}));
  FUZZ_CHECK(back.ok() && back->rows == rows && back->cols == cols);
  return 0;
}
