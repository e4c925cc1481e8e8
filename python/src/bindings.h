// Shared pieces of the Python module: the GIL, progress events into Python, image inputs.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "edgeq/edgeq.h"
#include "edgeq/interrupt.h"

namespace edgeq::python {
namespace py = pybind11;

void bind_model(py::module_& m);
void bind_calibrate(py::module_& m);
void bind_quantize(py::module_& m);
void bind_compare(py::module_& m);
void bind_doctor(py::module_& m);
void bind_bench(py::module_& m);
void bind_ledger(py::module_& m);
void bind_detect(py::module_& m);
void bind_session(py::module_& m);
void bind_cli(py::module_& m);
void bind_defaults(py::module_& m);

// A long call from Python: progress events go to a Python callable (or nowhere), and SIGINT
// (Ctrl-C) or SIGTERM stops the call (core/interrupt.h) when it runs on the main thread. Construct
// with the GIL held, then run the work through run(), which releases the GIL. After the work has
// stopped and kept what finished, the signal goes to the handler it would have met without the
// call: Python's (KeyboardInterrupt for SIGINT, or the program's own handler) or the default
// action (SIGTERM ends the process). An exception the callable raised is raised in place of
// edgeq::Cancelled.
class LongCall {
 public:
  explicit LongCall(py::object progress);
  ~LongCall();
  ProgressCallback callback() const;

  template <class F>
  auto run(F&& work) -> decltype(work(std::declval<const ProgressCallback&>())) {
    const ProgressCallback cb = callback();
    std::optional<InterruptScope> scope;
    if (on_main_thread_) scope.emplace();
    std::optional<decltype(work(cb))> result;
    std::exception_ptr failed;
    {
      py::gil_scoped_release release;
      try {
        result.emplace(work(cb));
      } catch (...) {
        failed = std::current_exception();
      }
    }
    const int sig = scope ? scope->signal() : 0;
    scope.reset();  // the handlers from before the call
    finish(sig, failed);
    return std::move(*result);
  }

  struct State;

 private:
  // Raises what the call ended with: the signal caught (`sig`, 0 for none), then the callable's
  // exception, then the work's own (`failed`); returns when there is none.
  void finish(int sig, const std::exception_ptr& failed);
  std::shared_ptr<State> state_;
  bool on_main_thread_ = false;
};

// exec=, emulate=, threads= as ExecOptions: the names parsed (edgeq::parse, any case; an Error
// "exec: 'x' is not one of simulate, int8"), the whole checked by edgeq::validate(ExecOptions).
ExecOptions exec_options(const std::string& exec, const std::string& emulate, int threads);

// A numpy array HxWx3 uint8 (BGR, C-contiguous) as a frame; throws edgeq::Error naming `what`.
ImageFrame frame_from_array(const py::handle& array, const std::string& what);
// A str / os.PathLike path (folder, list file, video or image), or a sequence of paths and
// arrays, as an image source.
ImageSource image_source(const py::handle& images);
bool is_path(const py::handle& obj);
// The Python type's name of `obj`, for messages ("int", "ndarray").
std::string type_name(const py::handle& obj);
// The images a path holds (a folder, recursively; a list file; one image), in order.
py::list image_names(const py::object& path);
// A str or os.PathLike path as the bytes the file system names (os.fsencode: a str from
// os.listdir holding a name that is not UTF-8 gives its bytes back). A path holding a NUL byte is
// refused (edgeq.Error), never cut there.
std::string path_string(const py::handle& obj);
// A file name from the library as Python's str for it (os.fsdecode, the inverse).
py::object path_object(const std::string& path);
// Text the library keeps as bytes that may not be UTF-8 (a ledger's tags, command lines, metric
// names) as Python's str, decoded as the library's JSON writer escapes it (core/json_text.h): a
// byte outside UTF-8 becomes U+DC80..U+DCFF (Python's "surrogateescape").
py::str text_object(const std::string& s);
// The inverse, for text arguments: a str (surrogates back to their bytes) or bytes.
std::string text_string(const py::handle& obj, const std::string& what);

}  // namespace edgeq::python
