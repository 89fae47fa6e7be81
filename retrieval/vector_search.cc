#include "retrieval/vector_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "base/worker_pool.h"
#include "fmt/format.h"
#include "kernels/dot_rows.h"

namespace tokvec {
namespace {

constexpr int64_t kRowBlock = 512;    // index rows per task: 768 KB of 384-wide float rows, kept in L2
constexpr int64_t kQueryBlock = 64;   // queries scored together against a task's rows

// a ranks before b: the higher score, then the lower row.
bool Better(const SearchHit& a, const SearchHit& b) {
  return a.score > b.score || (a.score == b.score && a.index < b.index);
}

// The best `k` hits offered so far: a heap whose top is the worst kept.
class TopK {
 public:
  explicit TopK(int64_t k) : k_(static_cast<size_t>(k)) { hits_.reserve(k_); }

  // Whether Offer could keep `score`. Scores equal to the worst kept are refused too: each collector is offered
  // rows in increasing order (a worker takes ScanBlocks' blocks in increasing order), and an equal score with a
  // higher row never ranks before a kept one.
  bool Admits(float score) const { return hits_.size() < k_ || score > threshold_; }

  void Offer(float score, int64_t index) {
    if (std::isnan(score)) return;
    const SearchHit hit{index, score};
    if (hits_.size() < k_) {
      hits_.push_back(hit);
      std::push_heap(hits_.begin(), hits_.end(), Better);
      if (hits_.size() == k_) threshold_ = hits_.front().score;
      return;
    }
    if (!Better(hit, hits_.front())) return;
    std::pop_heap(hits_.begin(), hits_.end(), Better);
    hits_.back() = hit;
    std::push_heap(hits_.begin(), hits_.end(), Better);
    threshold_ = hits_.front().score;
  }

  const std::vector<SearchHit>& hits() const { return hits_; }

 private:
  size_t k_;
  std::vector<SearchHit> hits_;
  float threshold_ = -std::numeric_limits<float>::infinity();
};

// Joins the workers' collectors of one query into its best `k`, best first.
std::vector<SearchHit> Merge(const std::vector<std::vector<TopK>>& per_worker, size_t query, int64_t k) {
  std::vector<SearchHit> all;
  for (const auto& worker : per_worker) {
    all.insert(all.end(), worker[query].hits().begin(), worker[query].hits().end());
  }
  std::sort(all.begin(), all.end(), Better);
  if (static_cast<int64_t>(all.size()) > k) all.resize(static_cast<size_t>(k));
  return all;
}

// Runs score_block(block, worker, collectors of that worker) over the index's row blocks on `threads` threads,
// then merges. Blocks are fixed (kRowBlock rows from row 0), so scores never depend on the thread count.
template <typename ScoreBlock>
std::vector<std::vector<SearchHit>> ScanBlocks(int64_t queries, int64_t rows, int64_t k, int threads,
                                               int64_t block_rows, const ScoreBlock& score_block) {
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, blocks)));
  std::vector<std::vector<TopK>> collectors(static_cast<size_t>(threads),
                                            std::vector<TopK>(static_cast<size_t>(queries), TopK(k)));
  WorkerPool pool(threads);
  pool.Run(blocks, [&](int64_t block, int worker) { score_block(block, collectors[static_cast<size_t>(worker)]); });
  std::vector<std::vector<SearchHit>> hits(static_cast<size_t>(queries));
  for (int64_t q = 0; q < queries; ++q) hits[static_cast<size_t>(q)] = Merge(collectors, static_cast<size_t>(q), k);
  return hits;
}

// 1 / |v| (torch.nn.functional.normalize's max(|v|, 1e-12)), the sum of squares in double.
float InverseNorm(const float* v, int64_t d) {
  double sum = 0;
  for (int64_t j = 0; j < d; ++j) sum += static_cast<double>(v[j]) * v[j];
  return static_cast<float>(1.0 / std::max(std::sqrt(sum), 1e-12));
}

// Float queries against float rows (or uint8/int8 codes widened to float per block), each score from DotRows
// (kernels/dot_rows.h): one fixed summation order, so a (query, row) pair scores the same whatever else is
// searched with it.
std::vector<std::vector<SearchHit>> SearchFloat(MatrixView queries, const VectorIndex& index,
                                                const SearchOptions& options) {
  const int64_t d = queries.cols, n = index.rows(), nq = queries.rows;
  const bool cosine = options.metric == Metric::kCosine && index.dtype() == NpyDtype::kFloat32;
  std::vector<float> q(queries.data, queries.data + nq * d);
  if (cosine) {
    for (int64_t r = 0; r < nq; ++r) {
      const float inv = InverseNorm(&q[r * d], d);
      for (int64_t j = 0; j < d; ++j) q[r * d + j] *= inv;
    }
  }
  return ScanBlocks(nq, n, options.k, options.threads, kRowBlock, [&](int64_t block, std::vector<TopK>& top) {
    thread_local std::vector<float> scores, widened, inverse;
    const int64_t row0 = block * kRowBlock, count = std::min(kRowBlock, n - row0);
    const float* rows = nullptr;
    if (index.dtype() == NpyDtype::kFloat32) {
      rows = index.floats() + row0 * d;
    } else {  // codes as floats
      widened.resize(static_cast<size_t>(count * d));
      const uint8_t* codes = index.data() + row0 * d;
      for (int64_t i = 0; i < count * d; ++i) {
        widened[i] = index.dtype() == NpyDtype::kInt8 ? static_cast<float>(static_cast<int8_t>(codes[i]))
                                                      : static_cast<float>(codes[i]);
      }
      rows = widened.data();
    }
    if (cosine) {
      inverse.resize(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) inverse[i] = InverseNorm(rows + i * d, d);
    }
    scores.resize(static_cast<size_t>(kQueryBlock * count));
    for (int64_t q0 = 0; q0 < nq; q0 += kQueryBlock) {
      const int64_t qs = std::min(kQueryBlock, nq - q0);
      DotRows(&q[q0 * d], qs, rows, count, d, scores.data());
      for (int64_t i = 0; i < qs; ++i) {
        TopK& collector = top[static_cast<size_t>(q0 + i)];
        const float* s = scores.data() + i * count;
        for (int64_t j = 0; j < count; ++j) {
          const float score = cosine ? s[j] * inverse[j] : s[j];
          if (collector.Admits(score)) collector.Offer(score, row0 + j);
        }
      }
    }
  });
}

// Hamming distances of `query` to `count` rows of `bytes` bytes each. kWords > 0: rows of exactly kWords 64-bit
// words (the usual widths, unrolled by the compiler); 0: any width.
template <int kWords>
inline void HammingRows(const uint8_t* query, const uint8_t* rows, int64_t count, int64_t bytes, int32_t* out) {
  const int64_t words = kWords > 0 ? kWords : bytes / 8, tail = kWords > 0 ? 0 : bytes % 8;
  uint64_t q[kWords > 0 ? kWords : 1];
  if constexpr (kWords > 0) std::memcpy(q, query, sizeof(q));
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* row = rows + i * bytes;
    int distance = 0;
    for (int64_t w = 0; w < words; ++w) {
      uint64_t x, y;
      std::memcpy(&x, row + 8 * w, 8);
      if constexpr (kWords > 0) {
        y = q[w];
      } else {
        std::memcpy(&y, query + 8 * w, 8);
      }
      distance += __builtin_popcountll(x ^ y);
    }
    for (int64_t t = 0; t < tail; ++t) distance += __builtin_popcount(row[8 * words + t] ^ query[8 * words + t]);
    out[i] = distance;
  }
}

// Picks the unrolled loop for the row width; `Popcnt` instances are compiled for the popcnt instruction (every
// x86-64 CPU since 2008; the default target has none and would count bits in software).
#define TOKVEC_HAMMING_DISPATCH                                                                  \
  switch (bytes) {                                                                               \
    case 32: return HammingRows<4>(query, rows, count, bytes, out);                              \
    case 48: return HammingRows<6>(query, rows, count, bytes, out);                              \
    case 64: return HammingRows<8>(query, rows, count, bytes, out);                              \
    case 96: return HammingRows<12>(query, rows, count, bytes, out);                             \
    case 128: return HammingRows<16>(query, rows, count, bytes, out);                            \
    default: return HammingRows<0>(query, rows, count, bytes, out);                              \
  }
__attribute__((target("popcnt"))) void HammingRowsPopcnt(const uint8_t* query, const uint8_t* rows, int64_t count,
                                                         int64_t bytes, int32_t* out) {
  TOKVEC_HAMMING_DISPATCH
}
void HammingRowsPortable(const uint8_t* query, const uint8_t* rows, int64_t count, int64_t bytes, int32_t* out) {
  TOKVEC_HAMMING_DISPATCH
}
#undef TOKVEC_HAMMING_DISPATCH

std::vector<std::vector<SearchHit>> SearchBits(MatrixView queries, const VectorIndex& index,
                                               const SearchOptions& options) {
  const int64_t d = queries.cols, nq = queries.rows, bytes = index.cols(), n = index.rows();
  // The queries' sign bits, packed as ubinary (a binary index's bytes are flipped back as they are read).
  const uint8_t flip = index.dtype() == NpyDtype::kInt8 ? 0x80 : 0;
  std::vector<uint8_t> bits(static_cast<size_t>(nq * bytes), 0);
  for (int64_t r = 0; r < nq; ++r) {
    for (int64_t j = 0; j < d; ++j) {
      if (queries.row(r)[j] > 0) bits[r * bytes + j / 8] |= static_cast<uint8_t>(0x80u >> (j % 8));
    }
    for (int64_t b = 0; b < bytes; ++b) bits[r * bytes + b] ^= flip;  // compare in the index's own bytes
  }
  const bool rescore = options.rescore_multiplier > 0;
  const int64_t candidates = rescore ? std::min<int64_t>(n, options.k * options.rescore_multiplier) : options.k;
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  constexpr int64_t kBitBlock = 4096;
  std::vector<std::vector<SearchHit>> nearest =
      ScanBlocks(nq, n, candidates, options.threads, kBitBlock, [&](int64_t block, std::vector<TopK>& top) {
        thread_local std::vector<int32_t> distance;
        const int64_t row0 = block * kBitBlock, count = std::min(kBitBlock, n - row0);
        distance.resize(static_cast<size_t>(count));
        for (int64_t q = 0; q < nq; ++q) {
          (has_popcnt ? HammingRowsPopcnt : HammingRowsPortable)(&bits[q * bytes], index.data() + row0 * bytes,
                                                                 count, bytes, distance.data());
          TopK& collector = top[static_cast<size_t>(q)];
          for (int64_t i = 0; i < count; ++i) {
            const float score = static_cast<float>(-distance[i]);
            if (collector.Admits(score)) collector.Offer(score, row0 + i);
          }
        }
      });
  for (int64_t q = 0; q < nq; ++q) {
    std::vector<SearchHit>& hits = nearest[static_cast<size_t>(q)];
    if (!rescore) {
      for (SearchHit& hit : hits) hit.score += static_cast<float>(d);  // d - distance: the bits that agree
      continue;
    }
    // sentence-transformers' rescoring: the float query . the row's bits as 0/1.
    const float* query = queries.row(q);
    for (SearchHit& hit : hits) {
      const uint8_t* row = index.data() + hit.index * bytes;
      double sum = 0;
      for (int64_t j = 0; j < d; ++j) {
        if (((row[j / 8] ^ flip) >> (7 - j % 8)) & 1) sum += query[j];
      }
      hit.score = static_cast<float>(sum);
    }
    std::sort(hits.begin(), hits.end(), Better);
    if (static_cast<int64_t>(hits.size()) > options.k) hits.resize(static_cast<size_t>(options.k));
  }
  return nearest;
}

}  // namespace

absl::StatusOr<Metric> ParseMetric(std::string_view name) {
  if (name == "cosine") return Metric::kCosine;
  if (name == "dot") return Metric::kDot;
  return absl::InvalidArgumentError(fmt::format("unknown metric '{}' (cosine, dot)", name));
}

absl::StatusOr<VectorIndex> VectorIndex::Open(const std::string& path) {
  auto file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  std::shared_ptr<MappedFile> mapped = *std::move(file);
  auto index = FromNpy(mapped->data());
  if (!index.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, std::string(index.status().message())));
  }
  index->file_ = std::move(mapped);
  return index;
}

absl::StatusOr<VectorIndex> VectorIndex::FromNpy(std::string_view npy) {
  auto view = ParseNpyMatrix(npy);
  if (!view.ok()) return view.status();
  if (view->dtype == NpyDtype::kFloat32 && view->data_offset % alignof(float) != 0) {
    return absl::InvalidArgumentError("the .npy's floats are not aligned");
  }
  return FromMemory(view->dtype, view->rows, view->cols, npy.data() + view->data_offset);
}

VectorIndex VectorIndex::FromMemory(NpyDtype dtype, int64_t rows, int64_t cols, const void* data) {
  VectorIndex index;
  index.dtype_ = dtype;
  index.rows_ = rows;
  index.cols_ = cols;
  index.data_ = static_cast<const uint8_t*>(data);
  return index;
}

absl::StatusOr<IndexKind> KindOfSearch(int64_t query_dims, const VectorIndex& index) {
  if (index.dtype() == NpyDtype::kFloat32) {
    if (query_dims == index.cols()) return IndexKind::kFloat;
    return absl::InvalidArgumentError(fmt::format(
        "the queries have {} dimensions, the float32 index {}", query_dims, index.cols()));
  }
  if (query_dims == index.cols()) return IndexKind::kCodes;
  if (query_dims > 0 && (query_dims + 7) / 8 == index.cols()) return IndexKind::kBits;
  return absl::InvalidArgumentError(fmt::format(
      "the queries have {} dimensions; the {} index's {} columns are neither that many codes nor their {} bytes of "
      "bits",
      query_dims, NpyDtypeName(index.dtype()), index.cols(), (query_dims + 7) / 8));
}

absl::StatusOr<std::vector<std::vector<SearchHit>>> Search(MatrixView queries, const VectorIndex& index,
                                                           const SearchOptions& options) {
  if (options.k < 1) return absl::InvalidArgumentError(fmt::format("k must be at least 1, not {}", options.k));
  if (options.threads < 1) return absl::InvalidArgumentError("threads must be at least 1");
  if (options.rescore_multiplier < 0) return absl::InvalidArgumentError("the rescore multiplier must be 0 or more");
  auto kind = KindOfSearch(queries.cols, index);
  if (!kind.ok()) return kind.status();
  if (queries.rows == 0) return std::vector<std::vector<SearchHit>>();
  if (index.rows() == 0) return std::vector<std::vector<SearchHit>>(static_cast<size_t>(queries.rows));
  SearchOptions clamped = options;  // k above the row count: every row (and no collector sized by a huge k)
  clamped.k = std::min(options.k, index.rows());
  switch (*kind) {
    case IndexKind::kFloat:
      return SearchFloat(queries, index, clamped);
    case IndexKind::kCodes:
      if (options.metric != Metric::kDot) {
        return absl::InvalidArgumentError(fmt::format(
            "a {} code index is searched by the dot product of the float queries with the codes: ask for metric dot",
            NpyDtypeName(index.dtype())));
      }
      return SearchFloat(queries, index, clamped);
    case IndexKind::kBits:
      return SearchBits(queries, index, clamped);
  }
  return absl::InternalError("unknown index kind");
}

}  // namespace tokvec
