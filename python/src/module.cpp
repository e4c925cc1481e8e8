// The Python module edgeq._edgeq: the library API (include/edgeq/) for Python. The public names
// and their documentation are in python/edgeq/__init__.py, which wraps these.
#include <cstring>

#include "bindings.h"

namespace edgeq::python {
namespace {

PyObject* error_type = nullptr;  // the Python classes, kept for the life of the interpreter
PyObject* cancelled_type = nullptr;

// Raises `type` with `message`; bytes of a file name that are not UTF-8 show as \xNN.
void set_error(PyObject* type, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)),
                                        "backslashreplace");
  if (text == nullptr) return;  // the decoding error is the one raised
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

void register_errors(py::module_& m) {
  auto* error = new py::exception<Error>(m, "Error");
  error->doc() = "Every failure edgeq reports: a one-line message naming the file or option.";
  auto* cancelled = new py::exception<Cancelled>(m, "Cancelled", error->ptr());
  cancelled->doc() = "A progress callback returned False.";
  error_type = error->ptr();
  cancelled_type = cancelled->ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const Cancelled& e) {
      set_error(cancelled_type, e.what());
    } catch (const std::exception& e) {  // edgeq::Error and any library exception
      set_error(error_type, e.what());
    }
  });
}

}  // namespace
}  // namespace edgeq::python

PYBIND11_MODULE(_edgeq, m) {
  using namespace edgeq::python;
  m.doc() = "edgeq's C++ library (use the package edgeq)";
  m.attr("__version__") = EDGEQ_VERSION;
  register_errors(m);
  bind_model(m);
  bind_calibrate(m);
  bind_quantize(m);
  bind_compare(m);
  bind_doctor(m);
  bind_bench(m);
  bind_ledger(m);
  bind_detect(m);
  bind_session(m);
  bind_cli(m);
  bind_defaults(m);
}
