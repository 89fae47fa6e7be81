// tokvec.search (exact top-k, retrieval/vector_search.h) and tokvec.quantize_embeddings (sentence-transformers'
// precisions, retrieval/quantize.h) over NumPy arrays, without copying the index.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "kernels/tensor.h"
#include "python/src/bindings.h"
#include "retrieval/quantize.h"
#include "retrieval/vector_search.h"

namespace tokvec::python {
namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// A float32 C-order [rows, cols] view (a 1-D array is one row); the array must outlive it.
MatrixView AsMatrix(const FloatArray& a, const char* name) {
  if (a.ndim() == 1) return {a.data(), 1, a.shape(0)};
  if (a.ndim() != 2) throw py::value_error(fmt::format("{} must be 1-D or 2-D, not {}-D", name, a.ndim()));
  return {a.data(), a.shape(0), a.shape(1)};
}

py::tuple Search(py::handle queries, py::handle index, int64_t k, const std::string& metric, int num_threads,
                 int64_t rescore_multiplier) {
  const FloatArray q = FloatArray::ensure(queries);
  if (!q) throw py::type_error("queries must be an array of floats");
  const MatrixView query_view = AsMatrix(q, "queries");
  // The index: a path to a .npy (memory-mapped), or an array of float32, uint8 or int8 (not copied when C-order).
  std::optional<VectorIndex> vectors;
  py::array held;
  if (PyUnicode_Check(index.ptr()) || py::isinstance(index, py::module_::import("os").attr("PathLike"))) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(index));
    vectors = Check(VectorIndex::Open(path));
  } else {
    py::array a = py::array::ensure(index);
    if (!a) throw py::type_error("index must be a .npy path or an array");
    NpyDtype dtype;
    if (a.dtype().is(py::dtype::of<uint8_t>())) {
      dtype = NpyDtype::kUint8;
      held = py::array_t<uint8_t, py::array::c_style>::ensure(a);
    } else if (a.dtype().is(py::dtype::of<int8_t>())) {
      dtype = NpyDtype::kInt8;
      held = py::array_t<int8_t, py::array::c_style>::ensure(a);
    } else {
      dtype = NpyDtype::kFloat32;
      held = FloatArray::ensure(a);
    }
    if (!held || held.ndim() != 2) throw py::value_error("index must be a 2-D array [N, D] (or [N, D/8] of bits)");
    vectors = VectorIndex::FromMemory(dtype, held.shape(0), held.shape(1), held.data());
  }
  const int threads =
      num_threads > 0 ? num_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const Metric parsed = Check(ParseMetric(metric));
  absl::StatusOr<std::vector<std::vector<SearchHit>>> hits = absl::UnknownError("not searched");
  {
    py::gil_scoped_release release;
    hits = tokvec::Search(query_view, *vectors,
                          {.k = k, .metric = parsed, .threads = threads, .rescore_multiplier = rescore_multiplier});
  }
  const std::vector<std::vector<SearchHit>> result = Check(std::move(hits));
  const py::ssize_t rows = static_cast<py::ssize_t>(result.size());
  const py::ssize_t width = result.empty() ? std::min<int64_t>(k, vectors->rows())
                                           : static_cast<py::ssize_t>(result[0].size());
  py::array_t<float> scores({rows, width});
  py::array_t<int64_t> indices({rows, width});
  auto s = scores.mutable_unchecked<2>();
  auto i = indices.mutable_unchecked<2>();
  for (py::ssize_t r = 0; r < rows; ++r) {
    for (py::ssize_t c = 0; c < width; ++c) {
      s(r, c) = result[r][c].score;
      i(r, c) = result[r][c].index;
    }
  }
  return py::make_tuple(scores, indices);
}

py::array QuantizeEmbeddings(py::handle embeddings, const std::string& precision, py::object ranges,
                             py::object calibration_embeddings) {
  const FloatArray e = FloatArray::ensure(embeddings);
  if (!e || e.ndim() != 2) throw py::value_error("embeddings must be a 2-D array of floats [N, D]");
  const Precision p = Check(ParsePrecision(precision));
  if (p == Precision::kFloat32) return FloatArray::ensure(embeddings);
  std::optional<QuantizationRanges> own;
  if (!ranges.is_none() && !calibration_embeddings.is_none()) {
    throw py::value_error("give ranges or calibration_embeddings, not both");
  }
  if (!ranges.is_none()) {
    const FloatArray r = FloatArray::ensure(ranges);
    if (!r || r.ndim() != 2) throw py::value_error("ranges must be a 2-D array [2, D]");
    own = Check(RangesFromMatrix(AsMatrix(r, "ranges")));
  } else if (!calibration_embeddings.is_none()) {
    const FloatArray c = FloatArray::ensure(calibration_embeddings);
    if (!c || c.ndim() != 2) throw py::value_error("calibration_embeddings must be a 2-D array [M, D]");
    own = Check(RangesOf(AsMatrix(c, "calibration_embeddings")));
  }
  return CodesToNumpy(Check(Quantize(AsMatrix(e, "embeddings"), p, own ? &*own : nullptr)));
}

}  // namespace

py::array CodesToNumpy(const QuantizedMatrix& codes) {
  py::array out = IsSignedPrecision(codes.precision) ? py::array(py::dtype::of<int8_t>(), {codes.rows, codes.cols})
                                                     : py::array(py::dtype::of<uint8_t>(), {codes.rows, codes.cols});
  std::copy(codes.bytes.begin(), codes.bytes.end(), static_cast<uint8_t*>(out.mutable_data()));
  return out;
}

void RegisterRetrieval(py::module_& m) {
  m.def("search", &Search, py::arg("queries"), py::arg("index"), py::arg("k") = 10, py::arg("metric") = "cosine",
        py::arg("num_threads") = 0, py::arg("rescore_multiplier") = 4,
        "(scores float32 [Q, k], indices int64 [Q, k]): the k rows of `index` nearest each query, best first, "
        "every row scored (exact). index: a .npy path (memory-mapped) or an array: float32 [N, D] (metric cosine "
        "or dot), uint8/int8 [N, D/8] ubinary/binary codes (Hamming distance, then the rescore_multiplier * k "
        "nearest rescored with the float query), or uint8/int8 [N, D] codes (dot). Ties go to the lower index.");
  m.def("quantize_embeddings", &QuantizeEmbeddings, py::arg("embeddings"), py::arg("precision"),
        py::arg("ranges") = py::none(), py::arg("calibration_embeddings") = py::none(),
        "sentence_transformers.quantization.quantize_embeddings: float32 [N, D] to int8/uint8 [N, D] (ranges [2, D] "
        "from `ranges`, `calibration_embeddings` or the embeddings themselves) or binary/ubinary [N, D/8].");
}

}  // namespace tokvec::python
