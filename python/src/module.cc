// The `tokvec._tokvec` extension module: tokenizers, training and models from Python. The public face is
// python/tokvec/__init__.py (docs) and __init__.pyi (types).
#include <pybind11/pybind11.h>

#include <string>

#include "python/src/bindings.h"

namespace tokvec::python {
namespace {

PyObject* g_error = nullptr;  // tokvec.Error, for failures that are neither a bad value nor a missing file.

}  // namespace

void Raise(const absl::Status& status) {
  const std::string message(status.message());
  PyObject* type = g_error;
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      type = PyExc_FileNotFoundError;
      break;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
      type = PyExc_ValueError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

std::string_view TextView(py::handle text, bool* is_str) {
  if (PyUnicode_Check(text.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);  // cached in the str: no copy after the first
    if (data == nullptr) throw py::error_already_set();             // lone surrogates: UnicodeEncodeError
    if (is_str != nullptr) *is_str = true;
    return {data, static_cast<size_t>(size)};
  }
  if (PyBytes_Check(text.ptr())) {
    if (is_str != nullptr) *is_str = false;
    return {PyBytes_AS_STRING(text.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(text.ptr()))};
  }
  throw py::type_error(std::string("expected str or bytes, got ") + Py_TYPE(text.ptr())->tp_name);
}

void RegisterErrors(py::module_& m) {
  static py::exception<std::exception> error(m, "Error");
  g_error = error.ptr();
  m.attr("Error").attr("__doc__") =
      "A tokvec failure that is neither a bad value (ValueError) nor a missing file (FileNotFoundError), e.g. a "
      "corrupt or unsupported file.";
}

}  // namespace tokvec::python

PYBIND11_MODULE(_tokvec, m) {
  m.doc() = "tokvec: BPE tokenizers (tiktoken- and Hugging Face-compatible ids), training, and embeddings.";
  tokvec::python::RegisterErrors(m);
  tokvec::python::RegisterTokenizer(m);
  tokvec::python::RegisterTraining(m);
  tokvec::python::RegisterModel(m);
  tokvec::python::RegisterCompat(m);
  tokvec::python::RegisterRetrieval(m);
}
