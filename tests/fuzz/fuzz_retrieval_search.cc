// Fuzz target: the index reader and the exact search behind `tokvec search` (embeddings/npy.h ParseNpyMatrix,
// retrieval/vector_search.h, retrieval/quantize.h). Any bytes give a status or an index; a parsed index of any
// dtype and width is searched with queries of every kind it accepts (float, codes, bits) and must return at most
// k hits per query, each a row of the index, best first; float rows quantize to every precision without a crash.
//
//   build-fuzz/fuzz_retrieval_search tests/fuzz/corpus/retrieval_search -max_total_time=30
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "embeddings/npy.h"
#include "retrieval/quantize.h"
#include "retrieval/vector_search.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<NpyMatrixView> view = ParseNpyMatrix(bytes);
  if (!view.ok()) {
    FUZZ_CHECK(!view.status().message().empty());
    return 0;
  }
  if (view->rows * view->cols > 4096) return 0;
  // A copy, so the floats are aligned whatever the header length.
  std::vector<uint8_t> values(data + view->data_offset, data + size);
  const VectorIndex index = VectorIndex::FromMemory(view->dtype, view->rows, view->cols, values.data());
  const int64_t k = 1 + static_cast<int64_t>(size % 4);
  for (int64_t width : {view->cols, view->cols * 8, view->cols + 1}) {
    std::vector<float> queries(static_cast<size_t>(2 * width));
    for (size_t i = 0; i < queries.size(); ++i) queries[i] = static_cast<float>(data[i % size]) - 127.5f;
    for (Metric metric : {Metric::kCosine, Metric::kDot}) {
      auto hits = Search({queries.data(), 2, width}, index, {.k = k, .metric = metric, .rescore_multiplier = 2});
      if (!hits.ok()) continue;
      for (const auto& row : *hits) {
        FUZZ_CHECK(static_cast<int64_t>(row.size()) <= k);
        for (size_t r = 0; r < row.size(); ++r) {
          FUZZ_CHECK(row[r].index >= 0 && row[r].index < view->rows);
          if (r > 0) FUZZ_CHECK(!(row[r].score > row[r - 1].score));
        }
      }
    }
  }
  if (view->dtype == NpyDtype::kFloat32 && view->cols > 0) {
    std::vector<float> floats(values.size() / sizeof(float));
    std::memcpy(floats.data(), values.data(), floats.size() * sizeof(float));
    const MatrixView m{floats.data(), view->rows, view->cols};
    for (Precision p : {Precision::kInt8, Precision::kUint8, Precision::kBinary, Precision::kUbinary}) {
      auto q = Quantize(m, p, nullptr);
      FUZZ_CHECK(q.ok() && static_cast<int64_t>(q->bytes.size()) == q->rows * q->cols);
    }
  }
  return 0;
}
