#include "bindings.h"

namespace edgeq::python {
namespace {

DoctorReport doctor_py(const Model& model, const py::object& stats, const std::string& target,
                       const py::object& images, const py::object& encodings, size_t max_images,
                       size_t sensitivity, double top_percent, size_t max_info, bool all,
                       py::object progress) {
  DoctorOptions o;
  o.target = target;
  if (!stats.is_none())
    o.stats = std::make_shared<CalibrationStats>(stats.cast<CalibrationStats>());
  if (!images.is_none()) o.images = std::make_shared<ImageSource>(image_source(images));
  o.encodings_file = encodings.is_none() ? "" : path_string(encodings);
  o.max_images = max_images;
  o.sensitivity = sensitivity;
  o.top_percent = top_percent;
  o.max_info = max_info;
  o.all = all;
  LongCall call(std::move(progress));
  return call.run([&](const ProgressCallback& cb) {
    o.progress = cb;
    return doctor(model, o);
  });
}

}  // namespace

void bind_doctor(py::module_& m) {
  py::class_<DoctorFinding>(m, "Finding", "One thing the doctor found (edgeq.doctor()).")
      .def_property_readonly(
          "severity", [](const DoctorFinding& f) { return std::string(name(f.severity)); },
          "'error' | 'warning' | 'info'")
      .def_readonly("kind", &DoctorFinding::kind, "'truncation', 'float-tail', 'placement', ...")
      .def_readonly("value", &DoctorFinding::value, "the value at fault ('' for a node)")
      .def_readonly("node", &DoctorFinding::node, "the node at fault ('' for a value)")
      .def_readonly("message", &DoctorFinding::message)
      .def_readonly("numbers", &DoctorFinding::numbers)
      .def("__repr__", [](const DoctorFinding& f) {
        return "<edgeq.Finding " + std::string(name(f.severity)) + " [" + f.kind + "] " +
               f.message + ">";
      });
  py::class_<SensitivityRow>(m, "SensitivityRow", "One value's (or block's) output error at 8 bit.")
      .def_readonly("value", &SensitivityRow::value)
      .def_readonly("loss", &SensitivityRow::loss)
      .def_readonly("rel_l2", &SensitivityRow::rel_l2)
      .def_readonly("box_px", &SensitivityRow::box_px)
      .def_readonly("kpt_px", &SensitivityRow::kpt_px)
      .def_readonly("score", &SensitivityRow::score)
      .def_readonly("flipped", &SensitivityRow::flipped);
  using R = DoctorReport;
  py::class_<R>(m, "DoctorReport", R"doc(What a model will get wrong on a target (edgeq.doctor()).

findings (most severe first), target, qdq, encodings_from, has_stats; with sensitivity: ranking,
blocks, mixed (values a mixed set keeps at 16 bit), measure. text is what `edgeq doctor` prints;
to_dict() what `edgeq doctor --json` writes.)doc")
      .def_readonly("target", &R::target)
      .def_readonly("qdq", &R::qdq)
      .def_readonly("encodings_from", &R::encodings_from)
      .def_readonly("has_stats", &R::has_stats)
      .def_readonly("calibrated_images", &R::calibrated_images)
      .def_readonly("pair_images", &R::pair_images)
      .def_readonly("findings", &R::findings)
      .def_readonly("ranking", &R::ranking)
      .def_readonly("blocks", &R::blocks)
      .def_readonly("measure", &R::measure)
      .def_readonly("sensitivity_images", &R::sensitivity_images)
      .def_readonly("mixed", &R::mixed)
      .def_readonly("text", &R::text)
      .def_readonly("hidden", &R::hidden, "findings the text leaves out (all=True lists them)")
      .def(
          "to_dict", [](const R& r) { return py::module_::import("json").attr("loads")(r.json); },
          "The report as `edgeq doctor --json` writes it.")
      .def("__repr__", [](const R& r) {
        return "<edgeq.DoctorReport target " + r.target + ", " + std::to_string(r.findings.size()) +
               " findings>";
      });
  m.def("_doctor", &doctor_py, py::arg("model"), py::arg("stats"), py::arg("target"),
        py::arg("images"), py::arg("encodings"), py::arg("max_images"), py::arg("sensitivity"),
        py::arg("top_percent"), py::arg("max_info"), py::arg("all"), py::arg("progress"));
}

}  // namespace edgeq::python
