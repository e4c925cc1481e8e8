// edgeq.detect() for Python: the run over an image, a folder or a video.
#include "bindings.h"

namespace edgeq::python {
namespace {

DetectReport detect_py(const Model& model, const py::object& source, const py::dict& kw,
                       py::object on_frame, py::object progress) {
  DetectOptions o;
  auto path_or_empty = [&](const char* key) {
    return kw.contains(key) && !kw[key].is_none() ? path_string(kw[key]) : std::string();
  };
  o.json = path_or_empty("json");
  o.draw = path_or_empty("draw");
  o.pipeline = kw["pipeline"].cast<bool>();
  o.pipeline_mode = parse<PipelineMode>(kw["pipeline_mode"].cast<std::string>());
  const int queue = kw["queue"].cast<int>();
  if (queue < 1) throw Error("queue must be in [1, 4096], got " + std::to_string(queue));
  o.queue = static_cast<size_t>(queue);
  o.drop_late = kw["drop_late"].cast<bool>();
  SessionOptions& s = o.session;
  s.exec = exec_options(kw["exec"].cast<std::string>(), kw["emulate"].cast<std::string>(),
                        kw["threads"].cast<int>());
  s.conf = kw["conf"].cast<float>(), s.iou = kw["iou"].cast<float>();
  s.max_det = kw["max_det"].cast<int>();
  if (!on_frame.is_none()) {
    auto cb = std::make_shared<py::object>(std::move(on_frame));
    o.on_frame = [cb](const std::string& line) {
      py::gil_scoped_acquire gil;
      (*cb)(line);
    };
  }
  const std::string src = path_string(source);
  LongCall call(std::move(progress));
  DetectReport r = call.run([&](const ProgressCallback& cb) {
    o.progress = cb;
    return detect(model, src, o);
  });  // Ctrl-C: KeyboardInterrupt, once what finished is written
  return r;
}

}  // namespace

void bind_detect(py::module_& m) {
  using R = DetectReport;
  py::class_<R>(m, "DetectReport", R"doc(What edgeq.detect() did.

frames, detections, skipped (unreadable), missing (frames a video's header declares that it never
gave: cut short or corrupt at the end), dropped (drop_late), interrupted (a progress callable
answered False: what finished is written), fps, notices; summary is what `edgeq run`
prints at the end, to_dict() the timing report (`edgeq run --report`).)doc")
      .def_readonly("frames", &R::frames)
      .def_readonly("detections", &R::detections)
      .def_readonly("skipped", &R::skipped)
      .def_readonly("missing", &R::missing)
      .def_readonly("dropped", &R::dropped)
      .def_readonly("interrupted", &R::interrupted)
      .def_readonly("fps", &R::fps)
      .def_readonly("notices", &R::notices)
      .def_readonly("summary", &R::summary)
      .def("to_dict", [](const R& r) { return py::module_::import("json").attr("loads")(r.json); })
      .def("__repr__", [](const R& r) {
        return "<edgeq.DetectReport " + std::to_string(r.frames) + " frames, " +
               std::to_string(r.detections) + " detections" +
               (r.interrupted ? ", interrupted>" : ">");
      });
  m.def("_detect", &detect_py, py::arg("model"), py::arg("source"), py::arg("options"),
        py::arg("on_frame"), py::arg("progress"));
}

}  // namespace edgeq::python
