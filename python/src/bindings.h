// Shared pieces of the `tokvec` Python module (pybind11): how tokvec's errors become Python exceptions and how
// text arguments (str or bytes) are read without a copy.
//
// Errors: NotFound -> FileNotFoundError; InvalidArgument, OutOfRange, FailedPrecondition -> ValueError; anything
// else -> tokvec.Error. The message is tokvec's own. Wrong argument types are pybind11's TypeError.
#ifndef TOKVEC_PYTHON_SRC_BINDINGS_H_
#define TOKVEC_PYTHON_SRC_BINDINGS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tokvec {
struct QuantizedMatrix;  // retrieval/quantize.h
}  // namespace tokvec

namespace tokvec::python {

namespace py = pybind11;

// Raises the Python exception for a failed status (see above).
[[noreturn]] void Raise(const absl::Status& status);

inline void Check(const absl::Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Check(absl::StatusOr<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

// The UTF-8 bytes of a str (cached inside the str object) or the bytes of a bytes object, valid while `text`
// lives; TypeError for anything else. `is_str` tells which it was.
std::string_view TextView(py::handle text, bool* is_str = nullptr);

void RegisterErrors(py::module_& m);
void RegisterTokenizer(py::module_& m);
void RegisterTraining(py::module_& m);
void RegisterModel(py::module_& m);
void RegisterCompat(py::module_& m);  // compat_bindings.cc: under tokvec.tiktoken, tokvec.tokenizers
void RegisterRetrieval(py::module_& m);
// Quantized codes as a NumPy array: int8 for int8 and binary, uint8 otherwise (retrieval_bindings.cc).
py::array CodesToNumpy(const QuantizedMatrix& codes);  // retrieval_bindings.cc: search, quantize_embeddings

}  // namespace tokvec::python

#endif  // TOKVEC_PYTHON_SRC_BINDINGS_H_
