// The Python module edgeq._edgeq: the library API (include/edgeq/) for Python. The public names
// and their documentation are in python/edgeq/__init__.py, which wraps these.
#include "bindings.h"

namespace edgeq::python {
namespace {

PyObject* error_type = nullptr;  // the Python classes, kept for the life of the interpreter
PyObject* cancelled_type = nullptr;

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
      PyErr_SetString(cancelled_type, e.what());
    } catch (const std::exception& e) {  // edgeq::Error and any library exception
      PyErr_SetString(error_type, e.what());
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
  bind_session(m);
  bind_cli(m);
}
