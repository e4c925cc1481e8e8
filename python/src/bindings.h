// Shared pieces of the Python module: the GIL, progress events into Python, image inputs.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "core/interrupt.h"
#include "edgeq/edgeq.h"

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

// A long call from Python: progress events go to a Python callable (or nowhere), and Ctrl-C
// (SIGINT) cancels the call when it comes from the main thread. Construct with the GIL held,
// then run the work through run(), which releases the GIL; an exception the callable raised, or
// KeyboardInterrupt, is raised in place of edgeq::Cancelled.
class LongCall {
 public:
  explicit LongCall(py::object progress);
  ~LongCall();
  ProgressCallback callback() const;

  template <class F>
  auto run(F&& work) -> decltype(work(std::declval<const ProgressCallback&>())) {
    const ProgressCallback cb = callback();
    try {
      std::optional<InterruptScope> scope;
      if (on_main_thread_) scope.emplace();
      set_scope(scope ? &*scope : nullptr);
      py::gil_scoped_release release;
      return work(cb);
    } catch (const Cancelled&) {
      raise_pending();
      throw;
    }
  }

  struct State;
  // Throws the callable's exception or KeyboardInterrupt, if any (for calls that stop without
  // edgeq::Cancelled, such as detect, after they wrote what finished).
  void raise_pending();

 private:
  void set_scope(const InterruptScope* scope);
  std::shared_ptr<State> state_;
  bool on_main_thread_ = false;
};

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
// os.listdir holding a name that is not UTF-8 gives its bytes back).
std::string path_string(const py::handle& obj);
// A file name from the library as Python's str for it (os.fsdecode, the inverse).
py::object path_object(const std::string& path);

}  // namespace edgeq::python
