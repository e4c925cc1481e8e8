#include <csignal>

#include "bindings.h"

namespace edgeq::python {

struct LongCall::State {
  py::object progress;  // None or callable(kind, task, done, total, message) -> bool | None
  std::shared_ptr<py::error_already_set> error;
  ~State() {
    py::gil_scoped_acquire gil;  // the callback's copies may die on a library thread
    error.reset();
    progress = py::object();
  }
};

namespace {

const char* kind_name(ProgressEvent::Kind k) {
  switch (k) {
    case ProgressEvent::Kind::kStep:
      return "step";
    case ProgressEvent::Kind::kMessage:
      return "message";
    case ProgressEvent::Kind::kWarning:
      return "warning";
  }
  return "step";
}

}  // namespace

LongCall::LongCall(py::object progress) : state_(std::make_shared<State>()) {
  state_->progress = std::move(progress);
  on_main_thread_ = py::module_::import("threading")
                        .attr("current_thread")()
                        .is(py::module_::import("threading").attr("main_thread")());
}

LongCall::~LongCall() = default;

ProgressCallback LongCall::callback() const {
  std::shared_ptr<State> s = state_;
  return [s](const ProgressEvent& e) -> bool {
    if (s->error) return false;
    py::gil_scoped_acquire gil;
    if (s->progress.is_none()) return true;
    try {
      py::object r = s->progress(kind_name(e.kind), e.task, e.done, e.total, e.message);
      return r.is_none() || r.cast<bool>();
    } catch (py::error_already_set& err) {
      s->error = std::make_shared<py::error_already_set>(std::move(err));
      return false;
    }
  };
}

void LongCall::finish(int sig, const std::exception_ptr& failed) {
  if (sig) {
    // The signal again, now to the handler restored: Python's records it and PyErr_CheckSignals
    // runs the Python-level handler (KeyboardInterrupt for SIGINT); the default action of SIGTERM
    // ends the process here, after the call wrote what finished.
    std::raise(sig);
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  bool cancelled = false;
  if (failed) {
    try {
      std::rethrow_exception(failed);
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (...) {
    }
  }
  if (state_->error && (!failed || cancelled)) throw *state_->error;
  if (failed) std::rethrow_exception(failed);
}

}  // namespace edgeq::python
