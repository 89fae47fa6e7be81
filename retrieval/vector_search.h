// Exact top-k search over a matrix of vectors: the k rows of an index most similar to each query, every row
// scored (no approximation), as NumPy's brute force `np.argpartition(-(Q @ X.T), k)` ranks them.
//
//   TOKVEC_ASSIGN_OR_RETURN(VectorIndex index, VectorIndex::Open("corpus.npy"));   // memory-mapped
//   TOKVEC_ASSIGN_OR_RETURN(auto hits, Search(queries.view(), index, {.k = 10, .threads = 2}));
//   // hits[q][r]: {index row, score}, best first
//
// Index kinds (by the .npy's dtype and the queries' width D):
//   float32 [N, D]        cosine (default: both sides scaled to unit length) or dot product, each score summed
//                         in one fixed order (kernels/dot_rows.h): a (query, row) pair scores the same bits
//                         whatever the thread count, the other queries or the CPU's vector width.
//   uint8/int8 [N, D/8]   ubinary/binary codes (retrieval/quantize.h): the queries' sign bits against the rows'
//                         by Hamming distance (popcount), the rescore_multiplier * k nearest kept, then rescored
//                         as sentence-transformers rescores: the float query's dot product with the row's bits as
//                         0/1, best first. rescore_multiplier 0 ranks by Hamming alone and reports D - distance
//                         (the bits that agree).
//   uint8/int8 [N, D]     uint8/int8 codes, scored by the float query's dot product with the codes (the int8
//                         rescoring formula, over every row); metric dot only.
// Ties (equal scores) go to the lower row index; a NaN score never ranks. Fewer than k rows give them all.
#ifndef TOKVEC_RETRIEVAL_VECTOR_SEARCH_H_
#define TOKVEC_RETRIEVAL_VECTOR_SEARCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_io.h"
#include "embeddings/npy.h"
#include "kernels/tensor.h"

namespace tokvec {

enum class Metric { kCosine, kDot };
// "cosine", "dot"; anything else is InvalidArgument.
absl::StatusOr<Metric> ParseMetric(std::string_view name);

// The rows to search: a .npy file mapped into memory, or bytes the caller keeps alive.
class VectorIndex {
 public:
  static absl::StatusOr<VectorIndex> Open(const std::string& path);
  // `npy` (a whole .npy file's bytes) must outlive the index.
  static absl::StatusOr<VectorIndex> FromNpy(std::string_view npy);
  // `data` holds rows * cols values of `dtype`, row-major, and must outlive the index.
  static VectorIndex FromMemory(NpyDtype dtype, int64_t rows, int64_t cols, const void* data);

  NpyDtype dtype() const { return dtype_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  const uint8_t* data() const { return data_; }
  const float* floats() const { return reinterpret_cast<const float*>(data_); }

 private:
  NpyDtype dtype_ = NpyDtype::kFloat32;
  int64_t rows_ = 0, cols_ = 0;
  const uint8_t* data_ = nullptr;
  std::shared_ptr<MappedFile> file_;  // when opened from a path
};

struct SearchOptions {
  int64_t k = 10;
  Metric metric = Metric::kCosine;  // float32 indexes only
  int threads = 1;
  int64_t rescore_multiplier = 4;  // binary indexes: candidates per hit kept for rescoring (0: no rescoring)
};

struct SearchHit {
  int64_t index = 0;  // row of the index, 0-based
  float score = 0;
};

// Which index kind `queries` of width D meet in `index`, or InvalidArgument naming both widths.
enum class IndexKind { kFloat, kBits, kCodes };
absl::StatusOr<IndexKind> KindOfSearch(int64_t query_dims, const VectorIndex& index);

// hits[q]: min(k, rows) hits for query row q, best first. k must be at least 1.
absl::StatusOr<std::vector<std::vector<SearchHit>>> Search(MatrixView queries, const VectorIndex& index,
                                                           const SearchOptions& options);

}  // namespace tokvec

#endif  // TOKVEC_RETRIEVAL_VECTOR_SEARCH_H_
