#include "bindings.h"

namespace edgeq::python {
namespace {

CompareReport compare_py(const Model& reference, const Model& test, const py::object& images,
                         const py::object& labels, size_t n, float conf, float iou, float map_conf,
                         const std::string& exec, const std::string& emulate, int threads,
                         py::object progress) {
  CompareOptions o;
  o.labels = labels.is_none() ? "" : path_string(labels);
  o.n = n;
  o.conf = conf, o.iou = iou, o.map_conf = map_conf;
  o.exec = exec_options(exec, emulate, threads);
  const std::string folder = path_string(images);
  LongCall call(std::move(progress));
  return call.run([&](const ProgressCallback& cb) {
    o.progress = cb;
    return compare(reference, test, folder, o);
  });
}

// Per-channel moments as dicts (mean, var, min, max): the board check's.
py::list moments_list(const std::vector<CompareReport::Moments>& v) {
  py::list out;
  for (const auto& m : v) {
    py::dict d;
    d["mean"] = m.mean, d["var"] = m.var, d["min"] = m.min, d["max"] = m.max;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_compare(py::module_& m) {
  using R = CompareReport;
  py::class_<R::Output>(m, "CompareOutput", "One graph output's tensor error (test vs reference).")
      .def_readonly("name", &R::Output::name)
      .def_readonly("rel_l2", &R::Output::rel_l2)
      .def_readonly("cosine", &R::Output::cosine)
      .def_readonly("max_abs", &R::Output::max_abs)
      .def_property_readonly("ref_channels",
                             [](const R::Output& o) { return moments_list(o.ref_channels); })
      .def_property_readonly("test_channels",
                             [](const R::Output& o) { return moments_list(o.test_channels); })
      .def_property_readonly("diverging_channels",
                             [](const R::Output& o) -> py::object {
                               if (o.diverging_first < 0) return py::none();
                               return py::make_tuple(o.diverging_first, o.diverging_last);
                             })
      .def("__repr__", [](const R::Output& o) {
        return "<edgeq.CompareOutput " + o.name + " rel_l2=" + std::to_string(o.rel_l2) + ">";
      });
  py::class_<R>(m, "CompareReport", R"doc(A test model against its reference (edgeq.compare()).

images; outputs (per graph output: rel_l2, cosine, max_abs); with a YOLO head (detections
True): ref_detections, test_detections, matched, extra, missing, match_rate, box_px, kpt_px,
score_abs, score_bias; with labels (labelled True): ref/test box and pose mAP50-95.
to_dict() is the JSON `edgeq compare --json` writes.)doc")
      .def_readonly("images", &R::images)
      .def_readonly("outputs", &R::outputs)
      .def_readonly("detections", &R::detections)
      .def_readonly("pose", &R::pose)
      .def_readonly("ref_detections", &R::ref_detections)
      .def_readonly("test_detections", &R::test_detections)
      .def_readonly("matched", &R::matched)
      .def_readonly("extra", &R::extra)
      .def_readonly("missing", &R::missing)
      .def_readonly("match_rate", &R::match_rate)
      .def_readonly("box_px", &R::box_px)
      .def_readonly("kpt_px", &R::kpt_px)
      .def_readonly("score_abs", &R::score_abs)
      .def_readonly("score_bias", &R::score_bias)
      .def_readonly("labelled", &R::labelled)
      .def_readonly("ref_box_map50_95", &R::ref_box_map50_95)
      .def_readonly("test_box_map50_95", &R::test_box_map50_95)
      .def_readonly("ref_pose_map50_95", &R::ref_pose_map50_95)
      .def_readonly("test_pose_map50_95", &R::test_pose_map50_95)
      .def(
          "to_dict", [](const R& r) { return py::module_::import("json").attr("loads")(r.json); },
          "The report as `edgeq compare --json` writes it.")
      .def("__repr__", [](const R& r) {
        return "<edgeq.CompareReport " + std::to_string(r.images) + " images, matched " +
               std::to_string(r.matched) + " of " + std::to_string(r.ref_detections) + ">";
      });
  m.def("_compare", &compare_py, py::arg("reference"), py::arg("test"), py::arg("images"),
        py::arg("labels"), py::arg("n"), py::arg("conf"), py::arg("iou"), py::arg("map_conf"),
        py::arg("exec"), py::arg("emulate"), py::arg("threads"), py::arg("progress"));
}

}  // namespace edgeq::python
